import KeyholdKit
import KeyholdTestSupport
import XCTest

// The Swift samples of KeyboardKit's articles (shared/seeds, copied here as printed; SwiftUI
// views aside, and the two printing slips the seeds' README names mended: a missing `)`, and
// "$₽¥€¢£₩" read in the wrong encoding). Each article's samples sit in a namespace of their own,
// since the articles reuse class names. The tests check that they do what the articles say,
// through a simulated keyboard driven by the sample's controller, as the daemon drives one.

/// "Understanding Actions" and "Actions": handling actions, a custom action handler for image
/// keys installed in `viewDidLoad`.
enum ActionsArticle {
    nonisolated(unsafe) static var saved: [String] = []
    nonisolated(unsafe) static var copied: [String] = []

    static func doStuff(with actionHandler: KeyboardActionHandler) {
        actionHandler.handle(.backspace)
        actionHandler.handle(.press, on: .character("a"))
        actionHandler.handle(.release, on: .dismissKeyboard)
    }

    static func doStuffWithSuggestion(with actionHandler: KeyboardActionHandler) {
        let suggestion = Autocomlete.Suggestion(text: "Hello")
        actionHandler.handle(suggestion)
    }

    class CustomActionHandler: StandardKeyboardActionHandler {

        init(inputViewController: KeyboardInputViewController) {
            super.init(inputViewController: inputViewController)
        }

        override func action(
            for gesture: KeyboardGesture,
            on action: KeyboardAction
        ) -> KeyboardAction.GestureAction? {
            let standard = super.action(for: gesture, on: action)
            switch gesture {
            case .longPress: return longPressAction(for: action) ?? standard
            case .release: return releaseAction(for: action) ?? standard
            default: return standard
            }
        }

        func longPressAction(for action: KeyboardAction) -> KeyboardAction.GestureAction? {
            switch action {
            case .image(_, _, let imageName): return { [weak self] _ in self?.saveImage(named: imageName) }
            default: return nil
            }
        }

        func releaseAction(for action: KeyboardAction) -> KeyboardAction.GestureAction? {
            switch action {
            case .image(_, _, let imageName): return { [weak self] _ in self?.copyImage(named: imageName) }
            default: return nil
            }
        }

        // The article's own helpers, which it does not print.
        func saveImage(named name: String) { ActionsArticle.saved.append(name) }
        func copyImage(named name: String) { ActionsArticle.copied.append(name) }
    }

    class KeyboardViewController: KeyboardInputViewController {

        override func viewDidLoad() {
            keyboardActionHandler = CustomActionHandler(inputViewController: self)
            super.viewDidLoad()
        }
    }

    class ServicesKeyboardViewController: KeyboardInputViewController {

        override func viewDidLoad() {
            services.actionHandler = CustomActionHandler(inputViewController: self)
            super.viewDidLoad()
        }
    }
}

/// "Understanding Feedback": a custom feedback handler, and feedback without one.
enum FeedbackArticle {
    class MyKeyboardFeedbackHandler: StandardKeyboardFeedbackHandler {

        override func triggerFeedback(for gesture: KeyboardGesture, on action: KeyboardAction) {
            if gesture == .longPress && action == .return {
                return HapticFeedback.heavyImpact.trigger()
            }
            super.triggerFeedback(for: gesture, on: action)
        }
    }

    class MyKeyboardViewController: KeyboardInputViewController {

        override func viewDidLoad() {
            keyboardFeedbackHandler = MyKeyboardFeedbackHandler()
            super.viewDidLoad()
        }
    }
}

/// "Callouts": a custom callout provider for `$`.
enum CalloutsArticle {
    class CustomCalloutActionProvider: StandardCalloutActionProvider {

        override func calloutActions(for action: KeyboardAction) -> [KeyboardAction] {
            switch action {
            case .character(let char):
                switch char {
                case "$": return "$₽¥€¢£₩".chars.map { KeyboardAction.character($0) }
                default: break
                }
            default: break
            }
            return super.calloutActions(for: action)
        }
    }

    class KeyboardViewController: KeyboardInputViewController {

        override func viewDidLoad() {
            services.calloutActionProvider = CustomCalloutActionProvider()
            super.viewDidLoad()
        }
    }
}

/// "Going Further": a useless action handler, and a tap on space.
enum GoingFurtherArticle {
    class MyActionHandler: StandardActionHandler {

        open override func canHandle(_ gesture: KeyboardGesture, on action: KeyboardAction) -> Bool {
            false   // Wow, what a useless action handler!
        }
    }

    class MyKeyboardViewController: KeyboardInputViewController {

        override func viewDidLoad() {
            keyboardActionHandler = MyActionHandler(inputViewController: self)
            super.viewDidLoad()
        }
    }

    static func tapSpace(_ actionHandler: KeyboardActionHandler) {
        actionHandler.handle(.tap, on: .space)
    }
}

final class SeedSampleTests: XCTestCase {
    override func tearDown() {
        AudioFeedback.engine = SilentAudioEngine()
        HapticFeedback.engine = SilentHapticEngine()
        ActionsArticle.saved = []
        ActionsArticle.copied = []
    }

    func simulate(_ controller: KeyboardInputViewController.Type, _ script: String,
                  _ configuration: KeyholdConfiguration = KeyholdConfiguration()) throws -> Simulator {
        let s = Simulator(controller: controller, configuration: configuration)
        _ = try s.run(script)
        return s
    }

    /// backspace deletes, a is typed, and `.dismissKeyboard` closes the open callout (keeping é).
    func testHandlingActions() throws {
        let s = try simulate(KeyboardInputViewController.self, "d:x u:x d:e t:600 u:e d:right u:right d:right u:right")
        XCTAssertTrue(s.engine.services.calloutContext.isOpen)
        ActionsArticle.doStuff(with: s.controller!.keyboardActionHandler)
        XCTAssertFalse(s.engine.services.calloutContext.isOpen, "dismissKeyboard closed the callout")
        XCTAssertEqual(s.application.text, "xa", "backspace deleted the é shown, a was typed")
    }

    /// The custom handler, set in `viewDidLoad` (either way the articles show): an image key's
    /// long press saves the image and its release copies it; other keys act as standard.
    func testCustomActionHandlerForImageKeys() throws {
        let image = KeyboardAction.image(description: "A cat", keyboardImageName: "cat-key", imageName: "cat")
        var configuration = KeyholdConfiguration()
        configuration.bindings = KeyBindings([.alphabetic: [.f1: KeyBinding(press: image)]])
        for controller in [ActionsArticle.KeyboardViewController.self, ActionsArticle.ServicesKeyboardViewController.self] {
            ActionsArticle.saved = []; ActionsArticle.copied = []
            let s = try simulate(controller, "d:f1 t:600 u:f1 d:f1 u:f1 d:e t:600 u:e d:2 u:2", configuration)
            XCTAssertTrue(s.controller!.keyboardActionHandler is ActionsArticle.CustomActionHandler)
            XCTAssertEqual(ActionsArticle.saved, ["cat"], "long press saves")
            XCTAssertEqual(ActionsArticle.copied, ["cat", "cat"], "each release copies")
            XCTAssertEqual(s.application.text, "é", "the image key types nothing; e and its callout work as standard")
        }
    }

    /// The custom feedback handler: a long-pressed return gives the heavy impact, through the
    /// static haptic engine; typing gives the standard feedback on the replaced static engines.
    func testCustomFeedbackHandler() throws {
        let sounds = AudioFeedbackRecorder(), rumble = HapticFeedbackRecorder()
        AudioFeedback.engine = sounds
        HapticFeedback.engine = rumble
        let s = try simulate(FeedbackArticle.MyKeyboardViewController.self, "d:x u:x d:backspace u:backspace")
        XCTAssertTrue(s.controller!.keyboardFeedbackHandler is FeedbackArticle.MyKeyboardFeedbackHandler)
        XCTAssertEqual(sounds.played, [.input, .delete])
        XCTAssertEqual(rumble.played, [.lightImpact, .lightImpact])
        s.controller!.keyboardActionHandler.handle(.longPress, on: .return)
        XCTAssertEqual(rumble.played.last, .heavyImpact)
    }

    /// Feedback without a handler.
    func testFeedbackWithoutAHandler() {
        let sounds = AudioFeedbackRecorder(), rumble = HapticFeedbackRecorder()
        AudioFeedback.engine = sounds
        HapticFeedback.engine = rumble
        AudioFeedback.input.trigger()
        HapticFeedback.heavyImpact.trigger()
        XCTAssertEqual(sounds.played, [.input])
        XCTAssertEqual(rumble.played, [.heavyImpact])
    }

    /// A replaced feedback handler plays on the engines its controller's services were given
    /// (the daemon's), not on silent ones.
    func testReplacedFeedbackHandlerUsesTheServicesEngines() throws {
        final class Given: KeyboardInputViewController {
            let sounds = AudioFeedbackRecorder()
            override func viewDidLoad() {
                services.audioEngine = sounds
                keyboardFeedbackHandler = FeedbackArticle.MyKeyboardFeedbackHandler()
                super.viewDidLoad()
            }
        }
        let s = try simulate(Given.self, "d:x u:x")
        XCTAssertEqual((s.controller as! Given).sounds.played, [.input])
    }

    /// `$` (Shift+4) held opens the custom currency callout; 2 picks ₽.
    func testCustomCalloutProvider() throws {
        let s = try simulate(CalloutsArticle.KeyboardViewController.self, "d:leftshift d:4 t:600 u:4 u:leftshift d:2 u:2")
        XCTAssertEqual(s.lines("callout").first, "500ms open $ 1$ 2₽ 3¥ 4€ 5¢ 6£ 7₩")
        XCTAssertEqual(s.application.text, "₽")
        // Other characters keep the standard candidates, in the keyboard's locale.
        let e = try simulate(CalloutsArticle.KeyboardViewController.self, "d:e t:600 u:e d:2 u:2")
        XCTAssertEqual(e.application.text, "é")
    }

    /// The useless handler: every key passes unchanged, letters with callouts included.
    func testUselessActionHandler() throws {
        let s = try simulate(GoingFurtherArticle.MyKeyboardViewController.self, "d:e t:600 u:e d:2 u:2 d:h u:h")
        XCTAssertEqual(s.application.text, "e2h")
        XCTAssertEqual(s.calloutOpens, 0)
        XCTAssertEqual(s.lines("forward").count, 6)
    }

    /// A tap on space types a space; a suggestion types its text.
    func testTapAndSuggestion() throws {
        let s = try simulate(KeyboardInputViewController.self, "d:h u:h")
        let handler = s.controller!.keyboardActionHandler
        GoingFurtherArticle.tapSpace(handler)
        ActionsArticle.doStuffWithSuggestion(with: handler)
        XCTAssertEqual(s.application.text, "h Hello")
    }

    /// `viewDidLoad` runs once, after the standard services exist and before the first key.
    func testViewDidLoadRunsOnceBeforeTheKeyboardStarts() throws {
        final class Counting: KeyboardInputViewController {
            var loads = 0
            var sawServices = false
            override func viewDidLoad() {
                loads += 1
                sawServices = keyboardActionHandler is StandardKeyboardActionHandler
                super.viewDidLoad()
            }
        }
        let s = try simulate(Counting.self, "d:a u:a")
        let controller = s.controller as! Counting
        XCTAssertEqual(controller.loads, 1)
        XCTAssertTrue(controller.sawServices)
        XCTAssertTrue(controller.state.keyboardContext === s.engine.services.keyboardContext)
        XCTAssertEqual(KeyboardAction.return, .primary(.return))
    }
}
