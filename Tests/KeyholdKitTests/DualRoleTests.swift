import KeyholdKit
import XCTest

/// Dual-role keys (`capslock = { tap = "escape", hold = "control" }`, keyd's overload), the
/// handler's say over every gesture, and the keypad under Num Lock: exact traces on a virtual clock.
/// Cases that are only a script and what it types or traces are fixtures in Tests/Fixtures/simulate
/// (dual-role-*).
final class DualRoleTests: XCTestCase {
    static let capsControl = configuration {
        $0.bindings = KeyBindings([.alphabetic: [.capsLock: KeyBinding(tap: .escape, hold: .control)]])
    }

    /// A layer held on a key: two keys of the layer while it is down, the base layer after.
    func testHoldLayerWithTwoKeys() {
        let c = configuration {
            $0.bindings = KeyBindings([
                .alphabetic: [.space: KeyBinding(tap: .space, hold: .keyboardType(KeyboardType(name: "nav")))],
                KeyboardType(name: "nav"): [.j: KeyBinding(press: .text("("), ), .k: KeyBinding(press: .text(")"))],
            ])
        }
        let s = simulate("d:space t:50 d:j u:j d:k u:k t:50 u:space d:j u:j d:space t:30 u:space d:k u:k", c)
        XCTAssertEqual(s.application.text, "()j k")
        XCTAssertEqual(s.engine.services.keyboardContext.keyboardType, .alphabetic)
    }

    /// Ordinary letters at 150 wpm with rollover (each key down 90 ms, the next 30 ms after the
    /// previous one went down), a dual-role Caps Lock configured: the paragraph arrives exactly
    /// and no modifier ever reaches the output.
    func testRolloverOfOrdinaryLettersIsUnaffected() {
        let paragraph = "the quick brown fox jumps over the lazy dog while keyhold types along at a steady pace"
        var steps: [String] = []
        var pending: [(name: String, upAt: Int)] = []
        var t = 0
        func releaseDue(until time: Int) {
            for key in pending.sorted(by: { $0.upAt < $1.upAt }) where key.upAt <= time {
                steps.append("t:\(key.upAt - t)"); t = key.upAt
                steps.append("u:\(key.name)")
            }
            pending.removeAll { $0.upAt <= time }
        }
        for character in paragraph {
            let name = character == " " ? "space" : String(character)
            releaseDue(until: t + 30)
            steps.append("t:\(max(0, 30 - (t % 30)))"); t += max(0, 30 - (t % 30))
            steps.append("d:\(name)")
            pending.removeAll { $0.name == name }
            pending.append((name, t + 90))
        }
        releaseDue(until: .max)
        let s = simulate(steps.joined(separator: " "), Self.capsControl)
        XCTAssertEqual(s.application.text, paragraph)
        XCTAssertFalse(s.application.events.contains { $0.key == .leftCtrl || $0.key == .esc })
        XCTAssertEqual(s.calloutOpens, 0)
        XCTAssertTrue(s.application.keyState.downKeys.isEmpty)
    }

    /// Releasing everything (unplug, stop) with a dual-role key down lets its modifier go and
    /// restores a held layer.
    func testReleaseAllUndoesHolds() {
        let s = simulate("d:capslock", Self.capsControl)
        s.engine.releaseAll()
        XCTAssertTrue(s.application.keyState.downKeys.isEmpty)
        XCTAssertTrue(s.engine.services.keyboardContext.heldModifiers.isEmpty)
        _ = try? s.run("t:10 u:capslock d:a u:a")
        XCTAssertEqual(s.application.text, "a")
    }

    // MARK: - The handler decides

    /// KeyboardKit's "useless action handler" (`canHandle` always false): every key passes
    /// unchanged, letters with callouts included, and nothing is typed by the handler.
    func testHandlerThatCannotHandleAnythingLetsEveryKeyPass() {
        final class Useless: StandardKeyboardActionHandler {
            var handled = 0
            override func canHandle(_ gesture: KeyboardGesture, on action: KeyboardAction) -> Bool { false }
            override func handle(_ gesture: KeyboardGesture, on action: KeyboardAction) {
                handled += 1
                super.handle(gesture, on: action)
            }
        }
        let s = Simulator()
        let useless = installActionHandler(in: s.engine.services, Useless.init)
        _ = try? s.run("d:e t:700 u:e d:2 u:2 d:h u:h")
        XCTAssertEqual(s.application.text, "e2h")
        XCTAssertEqual(s.lines("out"), ["0ms e down", "700ms e up", "700ms 2 down", "700ms 2 up", "700ms h down", "700ms h up"])
        XCTAssertEqual(useless.handled, 0)
        XCTAssertEqual(s.calloutOpens, 0)
        XCTAssertEqual(s.lines("forward").count, 6)
    }

    /// A custom handler learns which key it acts for from the context, not from Keyhold's own class.
    func testCustomHandlerSeesTheKeyThroughTheContext() {
        final class KeyNamer: KeyboardActionHandler {
            let context: KeyboardContext
            var seen: [String] = []
            init(context: KeyboardContext) { self.context = context }
            func canHandle(_ gesture: KeyboardGesture, on action: KeyboardAction) -> Bool { gesture == .press }
            func handle(_ gesture: KeyboardGesture, on action: KeyboardAction) {
                seen.append("\(context.currentKey.map { "\($0)" } ?? "-") \(gesture.rawValue)")
            }
            func handle(_ intent: CalloutKeyIntent) {}
        }
        let s = Simulator()
        let namer = KeyNamer(context: s.engine.services.keyboardContext)
        s.engine.services.actionHandler = namer
        _ = try? s.run("d:e u:e d:a u:a")
        XCTAssertEqual(namer.seen, ["e press", "a press"])
        XCTAssertNil(s.engine.services.keyboardContext.currentKey)
    }

    // MARK: - Keypad digits

    /// Keypad digits pick a candidate only with Num Lock on; off, they are cursor keys and type
    /// through, keeping what is shown (the fixture callout-keypad-digits-type-through-without-num-lock).
    func testKeypadDigitsPickOnlyWithNumLock() {
        let on = Simulator()
        on.engine.services.keyboardContext.isNumLockOn = true
        _ = try? on.run("d:e t:600 u:e d:kp2 u:kp2")
        XCTAssertEqual(on.lines("callout").last, "600ms close é")
    }
}
