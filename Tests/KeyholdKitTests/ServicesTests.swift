import KeyholdKit
import KeyholdTestSupport
import XCTest

/// The services can be replaced and the standard classes subclassed, as KeyboardKit users do.
final class ServicesTests: XCTestCase {
    final class FixedCallouts: CalloutActionProvider {
        func calloutActions(for action: KeyboardAction) -> [KeyboardAction] {
            action == .character("e") ? [.character("€"), .character("∃")] : []
        }
    }

    func testReplacedCalloutProviderIsUsedByTheStandardHandler() {
        let s = Simulator()
        s.engine.services.calloutActionProvider = FixedCallouts()
        s.run(try! SimulationScript("d:e t:600 u:e d:2 u:2 d:a t:600 u:a d:1 u:1"))
        // e uses the new provider; a has no callouts any more, so it is forwarded and 1 types itself.
        XCTAssertEqual(s.application.text, "∃a1")
    }

    func testReplacedControllerIsRewiredIntoTheHandler() {
        let s = Simulator()
        let services = s.engine.services
        let recorder = KeyEventRecorder()
        services.keyboardController = StandardKeyboardController(
            planner: KeystrokePlanner(layout: services.layout), output: recorder, keyboardContext: services.keyboardContext)
        s.run(try! SimulationScript("d:e u:e d:x u:x"))
        XCTAssertEqual(recorder.events, ["e down", "e up", "x down", "x up"])
        XCTAssertEqual(s.application.text, "")
    }

    func testReplacedEnginesAreRewiredIntoTheFeedbackHandler() {
        let s = Simulator()
        let haptics = HapticFeedbackRecorder(), audio = AudioFeedbackRecorder()
        s.engine.services.hapticEngine = haptics
        s.engine.services.audioEngine = audio
        s.run(try! SimulationScript("d:e t:600 u:e d:right u:right d:enter u:enter"))
        XCTAssertEqual(audio.played, [.input, .system, .system, .system])   // type, open, move, close
        XCTAssertEqual(haptics.played, [.lightImpact, .mediumImpact, .selectionChanged, .selectionChanged])
    }

    func testNextLocaleGivesSystemSoundAndHaptic() {
        let c = configuration {
            $0.callouts.locales = ["en", "pl"]
            $0.bindings = KeyBindings([.alphabetic: [.f1: KeyBinding(press: .nextLocale)]])
        }
        let s = Simulator(configuration: c)
        let haptics = HapticFeedbackRecorder(), audio = AudioFeedbackRecorder()
        s.engine.services.hapticEngine = haptics
        s.engine.services.audioEngine = audio
        s.run(try! SimulationScript("d:f1 u:f1"))
        XCTAssertEqual(s.engine.services.keyboardContext.locale, "pl")
        XCTAssertEqual(audio.played, [.system])
        XCTAssertEqual(haptics.played, [.lightImpact])
    }

    // MARK: subclasses that override one method

    final class LongQTypesAt: StandardKeyboardActionHandler {
        override func action(for gesture: KeyboardGesture, on action: KeyboardAction) -> GestureAction? {
            if gesture == .longPress && action == .character("q") { return { $0.insertText("@") } }
            return super.action(for: gesture, on: action)
        }
    }

    func testActionHandlerSubclass() {
        let c = configuration { $0.bindings = KeyBindings([.alphabetic: [.q: KeyBinding(press: .character("q"))]]) }
        let s = Simulator(configuration: c)
        installActionHandler(in: s.engine.services, LongQTypesAt.init)
        s.run(try! SimulationScript("d:q t:600 u:q d:e t:600 u:e d:2 u:2"))
        // The override adds a long press to q; e keeps the standard callouts.
        XCTAssertEqual(s.application.text, "q@é")
        XCTAssertEqual(s.lines("gesture").filter { $0.contains("longPress") }, ["500ms q longPress character:q", "1100ms e longPress character:e"])
    }

    final class MathCallouts: StandardCalloutActionProvider {
        override func calloutCandidates(for base: Character) -> [String] {
            base == "x" ? ["×", "ξ"] : super.calloutCandidates(for: base)
        }
    }

    func testCalloutProviderSubclass() {
        let s = Simulator()
        s.engine.services.calloutActionProvider = MathCallouts(keyboardContext: s.engine.services.keyboardContext)
        s.run(try! SimulationScript("d:x t:600 u:x d:1 u:1 d:e t:600 u:e d:2 u:2"))
        XCTAssertEqual(s.application.text, "×é")
    }

    final class QuietBackspace: StandardKeyboardFeedbackHandler {
        override func audioFeedback(for gesture: KeyboardGesture, on action: KeyboardAction) -> AudioFeedback? {
            action == .backspace ? nil : super.audioFeedback(for: gesture, on: action)
        }
    }

    func testFeedbackHandlerSubclass() {
        let audio = AudioFeedbackRecorder()
        let handler = QuietBackspace(settings: KeyboardFeedbackSettings(), audioEngine: audio)
        handler.triggerFeedback(for: .press, on: .backspace)
        handler.triggerFeedback(for: .press, on: .character("a"))
        XCTAssertEqual(audio.played, [.input])
    }

    /// Records what it is asked for, before any rule, and the sounds asked for directly.
    final class FeedbackLog: StandardKeyboardFeedbackHandler {
        var asked: [String] = []
        override func triggerFeedback(for gesture: KeyboardGesture, on action: KeyboardAction) {
            asked.append("\(gesture) \(action)")
        }
        override func triggerAudioFeedback(_ feedback: AudioFeedback) { asked.append("audio \(feedback)") }
    }

    /// The daemon has feedback decided after the batch's keys are written: the feedback handler
    /// is asked only at `playDeferredFeedback()`, in order, with the Shift of each press.
    func testFeedbackCanWaitUntilTheKeysAreOut() {
        let s = Simulator()
        let log = FeedbackLog()
        s.engine.services.feedbackHandler = log
        s.engine.defersFeedback = true
        // x is forwarded; e (it has callouts) goes through the standard handler.
        s.run(try! SimulationScript("d:leftshift d:x u:x u:leftshift d:e u:e d:x u:x"))
        XCTAssertEqual(s.application.text, "Xex", "the keys are out")
        XCTAssertEqual(log.asked, [], "nothing decided yet")
        s.engine.playDeferredFeedback()
        XCTAssertEqual(log.asked, ["press shift", "press character(\"X\")", "press character(\"e\")", "press character(\"x\")"])
        s.engine.playDeferredFeedback()
        XCTAssertEqual(log.asked.count, 4, "each once")

        // A long press: the callout opens at once, with its sound (the handler's own, not a
        // gesture's); the press and the long press are decided after, in order.
        s.run(try! SimulationScript("d:e t:600"))
        XCTAssertTrue(s.engine.services.calloutContext.isOpen)
        XCTAssertEqual(log.asked.suffix(1), ["audio system"])
        s.engine.playDeferredFeedback()
        XCTAssertEqual(log.asked.suffix(3), ["audio system", "press character(\"e\")", "longPress character(\"e\")"])
        s.run(try! SimulationScript("u:e d:esc u:esc"))
        s.engine.playDeferredFeedback()

        // A subclass of the standard handler triggers its own feedback, at once.
        installActionHandler(in: s.engine.services, SubclassedActionHandler.init)
        s.run(try! SimulationScript("d:e u:e"))
        XCTAssertEqual(log.asked.last, "press character(\"e\")", "asked at once")

        s.engine.defersFeedback = false
        s.run(try! SimulationScript("d:y u:y"))
        XCTAssertEqual(log.asked.last, "press character(\"y\")", "not deferred: asked at once")
    }

    /// With feedback deferred and no observer recording keys (the daemon with no `keyhold
    /// monitor`), a character the standard handler types goes out before the engine records
    /// its route and long press: the same text, feedback and gestures as the engine that runs
    /// the press as any other gesture (a trace recorded), through shift, rollover, long presses,
    /// picks, double taps and Caps Lock.
    func testTypingFirstOnPressChangesNothing() {
        let script = "d:leftshift d:e u:e u:leftshift d:e t:600 u:e d:2 u:2 d:a d:s u:a u:s d:o t:100 u:o d:o t:100 u:o "
            + "d:capslock u:capslock d:u t:700 d:right u:right u:u d:enter u:enter d:capslock u:capslock d:e t:80 d:n u:e u:n"
        var outcomes: [(text: String, asked: [String], open: Bool)] = []
        for recorded in [true, false] {
            let s = Simulator(recordsTrace: recorded)
            let log = FeedbackLog()
            s.engine.services.feedbackHandler = log
            s.engine.defersFeedback = true
            for step in script.split(separator: " ") {
                s.run(try! SimulationScript(String(step)))
                s.engine.playDeferredFeedback()
            }
            XCTAssertEqual(s.trace.isEmpty, !recorded)
            outcomes.append((s.application.text, log.asked, s.engine.services.calloutContext.isOpen))
        }
        XCTAssertEqual(outcomes[0].text, "EéasooÛen", "Enter picks û's capital, the first candidate Right moved to")
        XCTAssertEqual(outcomes[1].text, outcomes[0].text)
        XCTAssertEqual(outcomes[1].asked, outcomes[0].asked, "the same feedback, in the same order")
        XCTAssertTrue(outcomes[0].asked.contains("longPress character(\"e\")"))
        XCTAssertFalse(outcomes[1].open)
    }

    final class ShoutingController: StandardKeyboardController {
        override func insertText(_ text: String) { super.insertText(text.uppercased()) }
    }

    func testControllerSubclass() {
        let s = Simulator()
        let services = s.engine.services
        services.keyboardController = ShoutingController(
            planner: KeystrokePlanner(layout: services.layout), output: s.application, keyboardContext: services.keyboardContext)
        s.run(try! SimulationScript("d:e t:600 u:e d:2 u:2"))
        XCTAssertEqual(s.application.text, "É")
    }

    /// The daemon's quickest way to type a letter on press (no trace, feedback deferred) is the
    /// standard controller's own: a subclass put in later still gets the letter as text.
    func testALetterTypedOnPressReachesAControllerSubclass() {
        let s = Simulator(recordsTrace: false)
        s.engine.defersFeedback = true
        let services = s.engine.services
        s.run(try! SimulationScript("d:e u:e d:e u:e d:o u:o"))
        services.keyboardController = ShoutingController(
            planner: KeystrokePlanner(layout: services.layout), output: s.application, keyboardContext: services.keyboardContext)
        s.run(try! SimulationScript("d:e u:e d:o u:o"))
        s.engine.playDeferredFeedback()
        XCTAssertEqual(s.application.text, "eeoEO")
    }

    /// The same for a controller given to the standard handler itself, not to the services: the
    /// engine notices the handler was rewired, though the services were not.
    func testALetterTypedOnPressReachesAControllerGivenToTheHandler() {
        let s = Simulator(recordsTrace: false)
        s.engine.defersFeedback = true
        let services = s.engine.services
        s.run(try! SimulationScript("d:e u:e d:e u:e"))
        (services.actionHandler as! StandardKeyboardActionHandler).keyboardController = ShoutingController(
            planner: KeystrokePlanner(layout: services.layout), output: s.application, keyboardContext: services.keyboardContext)
        s.run(try! SimulationScript("d:e u:e"))
        s.engine.playDeferredFeedback()
        XCTAssertEqual(s.application.text, "eeE")
    }

    final class SpaceCommits: CalloutContext {
        override func intent(for pressed: KeyCode, in context: KeyboardContext) -> CalloutKeyIntent {
            pressed == .space ? .commit : super.intent(for: pressed, in: context)
        }
    }

    func testCalloutContextSubclass() {
        // Given to the services, the subclass is the one the engine uses: Space keeps è and is
        // consumed, where the standard context types it through (the fixture
        // callout-space-types-through-what-is-shown: "è x").
        let s = Simulator(calloutContext: SpaceCommits())
        s.run(try! SimulationScript("d:e t:600 u:e d:right u:right d:space u:space d:x u:x"))
        XCTAssertEqual(s.application.text, "èx")
    }

    final class NoLocaleCycling: KeyboardContext {
        override func selectNextLocale() {}
    }

    func testKeyboardContextSubclassAndNextLocale() {
        let context = KeyboardContext(locales: ["fr", "de"])
        context.selectNextLocale()
        XCTAssertEqual(context.locale, "de")
        context.selectNextLocale()
        XCTAssertEqual(context.locale, "fr")
        // Through the engine: F1 bound to nextLocale cycles (the fixtures
        // locale-active-locale-candidates-first, è, and locale-next-locale-puts-its-candidates-first,
        // ę), unless the context says no.
        let c = configuration {
            $0.callouts.locales = ["fr", "pl"]
            $0.bindings = KeyBindings([.alphabetic: [.f1: KeyBinding(press: .nextLocale)]])
        }
        let fixed = Simulator(configuration: c, keyboardContext: NoLocaleCycling(locales: ["fr", "pl"]))
        fixed.run(try! SimulationScript("d:f1 u:f1 d:e t:600 u:e d:1 u:1"))
        XCTAssertEqual(fixed.application.text, "è")
    }
}
