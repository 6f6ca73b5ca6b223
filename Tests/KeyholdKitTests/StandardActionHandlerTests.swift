import KeyholdKit
import KeyholdTestSupport
import XCTest

/// The standard handler runs its own gestures as values (no closure per key) when it is exactly
/// `StandardKeyboardActionHandler`; a subclass gets the closures of `action(for:on:)`. Both must do
/// the same thing for every gesture on every kind of action.
final class StandardActionHandlerTests: XCTestCase {
    static let actions: [KeyboardAction] = [
        .character("e"), .character("x"), .text("hi"), .emoji("😀"), .space, .tab, .primary(.return), .backspace,
        .escape, .moveCursorBackward, .moveCursorForward, .shift, .control, .option, .command, .capsLock,
        .key(.a), .key(.leftShift), .keyboardType(.numeric), .nextLocale, .none, .custom(named: "c"), .dismissKeyboard,
        .image(description: "i", keyboardImageName: "k", imageName: "n"),
    ]
    static let gestures: [KeyboardGesture] = [.press, .release, .tap, .longPress, .repeatPress, .doubleTap]

    /// Each gesture on each action, from a fresh state: whether it can be handled, then what
    /// handling it sent and left behind.
    private func transcript(subclassed: Bool) -> [String] {
        var lines: [String] = []
        for gesture in Self.gestures {
            for action in Self.actions {
                let recorder = KeyEventRecorder()
                let services = KeyboardServices(configuration: configuration { $0.callouts.locales = ["en", "pl"] },
                                                output: recorder)
                if subclassed { installActionHandler(in: services, SubclassedActionHandler.init) }
                let handler = services.actionHandler, context = services.keyboardContext
                services.keyboardContext.currentKey = .e
                let can = handler.canHandle(gesture, on: action)
                handler.handle(gesture, on: action)
                lines.append("\(gesture) \(action): can \(can), sent \(recorder.events), held \(context.heldModifiers.rawValue), "
                             + "type \(context.keyboardType), locale \(context.locale), callout \(services.calloutContext.isOpen)")
            }
        }
        return lines
    }

    func testTheStandardHandlerDoesWhatItsClosuresDo() {
        let direct = transcript(subclassed: false), closures = transcript(subclassed: true)
        XCTAssertEqual(direct.count, Self.gestures.count * Self.actions.count)
        for (d, c) in zip(direct, closures) { XCTAssertEqual(d, c) }
        // And what they do is the standard behaviour, not two matching nothings.
        XCTAssertTrue(direct.contains("press character(\"e\"): can true, sent [\"e down\", \"e up\"], held 0, type alphabetic, locale en, callout false"),
                      direct.first { $0.hasPrefix("press character(\"e\")") } ?? "")
        XCTAssertTrue(direct.contains { $0.hasPrefix("longPress character(\"e\"): can true") && $0.hasSuffix("callout true") })
        XCTAssertTrue(direct.contains { $0.hasPrefix("longPress character(\"x\"): can false") })
        XCTAssertTrue(direct.contains { $0.hasPrefix("press shift: can true, sent [\"leftshift down\"], held 1,") },
                      "\(direct.filter { $0.hasPrefix("press shift") })")
        XCTAssertTrue(direct.contains { $0.hasPrefix("tap escape: can true, sent [\"esc down\", \"esc up\"]") }, "\(direct.filter { $0.hasPrefix("tap escape") })")
        XCTAssertTrue(direct.contains { $0.hasPrefix("press nextLocale: can true, sent [], held 0, type alphabetic, locale pl") })
        XCTAssertTrue(direct.contains { $0.hasPrefix("doubleTap backspace: can false, sent []") })
    }

    /// The engine does not ask exactly the standard handler about a key whose character has
    /// callouts from the services' provider (it types on press and opens the callout on a long
    /// press); a subclass that overrides nothing is asked every question, and both must type,
    /// hold and open the same.
    func testTheEngineTypesWithoutAskingWhatAskingWouldType() {
        let script = "d:e u:e d:leftshift d:a u:a u:leftshift d:o t:600 u:o d:2 u:2 d:x u:x d:capslock u:capslock "
            + "d:u t:600 u:u d:right u:right d:enter u:enter d:capslock u:capslock d:e d:x u:e u:x d:a t:300 u:a "
            + "d:backspace t:700 u:backspace d:space u:space d:y t:600 u:y"
        func typed(subclassed: Bool) -> [String] {
            let s = Simulator(configuration: configuration { $0.callouts.locales = ["en", "pl"] })
            if subclassed { installActionHandler(in: s.engine.services, SubclassedActionHandler.init) }
            s.run(try! SimulationScript(script))
            return [s.application.text, "\(s.calloutOpens) callouts"] + s.lines("gesture") + s.lines("out")
        }
        let direct = typed(subclassed: false)
        XCTAssertEqual(direct, typed(subclassed: true))
        XCTAssertEqual(direct.prefix(2), ["eAöxÛex y", "3 callouts"], "\(direct)")
    }

    /// A standard handler given a provider of its own is asked: here it knows no callouts, so e
    /// held repeats instead of opening one (the services' provider has callouts for e).
    func testAStandardHandlerWithItsOwnProviderIsAsked() {
        let s = Simulator()
        let standard = s.engine.services.actionHandler as! StandardKeyboardActionHandler
        standard.calloutActionProvider = StandardCalloutActionProvider(keyboardContext: s.engine.services.keyboardContext,
                                                                       localizedProviders: [])
        s.run(try! SimulationScript("d:e t:700 u:e"))
        XCTAssertEqual(s.calloutOpens, 0)
        XCTAssertTrue(s.application.text.hasPrefix("ee"), s.application.text)
    }

    /// The same when the provider is given after letters were typed the daemon's quickest way (no
    /// trace, feedback deferred), which had found the handler asking the services' provider.
    func testAProviderGivenToTheStandardHandlerLaterIsAsked() {
        let s = Simulator(recordsTrace: false)
        s.engine.defersFeedback = true
        s.run(try! SimulationScript("d:e u:e d:e u:e"))
        let standard = s.engine.services.actionHandler as! StandardKeyboardActionHandler
        standard.calloutActionProvider = StandardCalloutActionProvider(keyboardContext: s.engine.services.keyboardContext,
                                                                       localizedProviders: [])
        s.run(try! SimulationScript("d:e t:700 u:e"))
        s.engine.playDeferredFeedback()
        XCTAssertFalse(s.engine.services.calloutContext.isOpen)
        XCTAssertTrue(s.application.text.hasPrefix("eeeee"), "held, e repeats: \(s.application.text)")
    }
}
