import KeyholdKit
import XCTest

/// Dual-role keys (`capslock = { tap = "escape", hold = "control" }`, keyd's overload), the
/// handler's say over every gesture, and the keypad under Num Lock: exact traces on a virtual clock.
final class DualRoleTests: XCTestCase {
    static let capsControl = configuration {
        $0.bindings = KeyBindings([.alphabetic: [.capsLock: KeyBinding(tap: .escape, hold: .control)]])
    }

    func testTapIsEscape() {
        let s = simulate("d:capslock t:120 u:capslock", Self.capsControl)
        XCTAssertEqual(s.lines("out"), ["0ms leftctrl down", "120ms leftctrl up", "120ms esc down", "120ms esc up"])
        XCTAssertEqual(s.lines("gesture"), [
            "0ms capslock press control", "120ms capslock release control",
            "120ms capslock press escape", "120ms capslock release escape",
        ])
    }

    func testHoldWithCIsControlC() {
        let s = simulate("d:capslock t:300 d:c t:80 u:c t:100 u:capslock", Self.capsControl)
        XCTAssertEqual(s.lines("out"), ["0ms leftctrl down", "300ms c down", "380ms c up", "480ms leftctrl up"])
        XCTAssertEqual(s.application.text, "\u{03}")
    }

    /// c 30 ms after Caps: the modifier is already down, so it is Ctrl+C, not "escape c".
    func testCWithin50msIsStillControlC() {
        let s = simulate("d:capslock t:30 d:c t:40 u:c t:10 u:capslock", Self.capsControl)
        XCTAssertEqual(s.lines("out"), ["0ms leftctrl down", "30ms c down", "70ms c up", "80ms leftctrl up"])
        XCTAssertEqual(s.application.text, "\u{03}")
    }

    /// A fast roll, Caps released before c or after it: Ctrl+C either way, no Escape.
    func testFastRollInEitherReleaseOrder() {
        let capsFirst = simulate("d:capslock t:20 d:c t:20 u:capslock t:20 u:c", Self.capsControl)
        XCTAssertEqual(capsFirst.lines("out"), ["0ms leftctrl down", "20ms c down", "40ms leftctrl up", "60ms c up"])
        XCTAssertEqual(capsFirst.application.text, "\u{03}")
        let cFirst = simulate("d:capslock t:20 d:c t:20 u:c t:20 u:capslock", Self.capsControl)
        XCTAssertEqual(cFirst.lines("out"), ["0ms leftctrl down", "20ms c down", "40ms c up", "60ms leftctrl up"])
        XCTAssertEqual(cFirst.application.text, "\u{03}")
    }

    /// Held alone past the long-press delay: the hold was meant, nothing is typed.
    func testHeldAlonePastTheThresholdTypesNothing() {
        let s = simulate("d:capslock t:700 u:capslock", Self.capsControl)
        XCTAssertEqual(s.lines("out"), ["0ms leftctrl down", "700ms leftctrl up"])
        XCTAssertEqual(s.application.text, "")
        XCTAssertEqual(s.calloutOpens, 0)
    }

    /// A Ctrl-held letter with callouts is a shortcut: no long press, no callout.
    func testHoldModifierMakesLettersShortcuts() {
        let s = simulate("d:capslock d:e t:700 u:e u:capslock", Self.capsControl)
        XCTAssertEqual(s.calloutOpens, 0)
        XCTAssertEqual(s.lines("out"), ["0ms leftctrl down", "0ms e down", "700ms e up", "700ms leftctrl up"])
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

    /// `press`/`long_press` keep their meaning: press runs on every press.
    func testPressAndLongPressKeepTheirMeaning() {
        let c = configuration {
            $0.bindings = KeyBindings([.alphabetic: [.capsLock: KeyBinding([.press: .escape, .longPress: .text("L")])]])
        }
        XCTAssertEqual(simulate("d:capslock t:700 u:capslock", c).lines("out").first, "0ms esc down")
        XCTAssertEqual(simulate("d:capslock t:700 u:capslock", c).application.text, "L")
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
    /// through (keeping what is shown).
    func testKeypadDigitsPickOnlyWithNumLock() {
        let on = Simulator()
        on.engine.services.keyboardContext.isNumLockOn = true
        _ = try? on.run("d:e t:600 u:e d:kp2 u:kp2")
        XCTAssertEqual(on.lines("callout").last, "600ms close é")
        let off = simulate("d:e t:600 u:e d:kp2 u:kp2")
        XCTAssertEqual(off.lines("callout").last, "600ms close e")
        XCTAssertEqual(off.lines("out").suffix(2), ["600ms kp2 down", "600ms kp2 up"])
    }
}
