import KeyholdKit
import XCTest

final class GestureTests: XCTestCase {
    /// A paragraph typed at 150 words per minute (80 ms a character) with every key held 130 ms,
    /// so each key goes down before the previous one is up; one key with callouts (the `u` of
    /// "quick") is even held 700 ms while others roll over it. No callout may ever open and the
    /// text must arrive exactly.
    func testRolloverAt150WpmNeverOpensCallout() {
        let paragraph = "the quick brown fox jumps over the lazy dog while eager users see accents appear only when they ask"
        var steps: [String] = []
        var events: [(Int, String)] = []
        let characters = Array(paragraph)
        for (i, c) in characters.enumerated() {
            let key = c == " " ? "space" : String(c)
            // A key cannot go down again before it is up: a double letter releases first.
            let doubled = i + 1 < characters.count && characters[i + 1] == c
            let hold = doubled ? 60 : i == 5 ? 700 : 130
            events.append((i * 80, "d:\(key)"))
            events.append((i * 80 + hold, "u:\(key)"))
        }
        events.sort { $0.0 < $1.0 }
        var t = 0
        for (time, step) in events {
            if time > t { steps.append("t:\(time - t)"); t = time }
            steps.append(step)
        }
        let s = simulate(steps.joined(separator: " "))
        XCTAssertEqual(s.application.text, paragraph)
        XCTAssertEqual(s.calloutOpens, 0)
        XCTAssertFalse(s.lines("gesture").contains { $0.contains("longPress") })
        XCTAssertTrue(s.application.keyState.isEmpty)
        // The long-held u, exactly: typed on press at 400 ms, released at 1100 ms, nothing between
        // although its long press was due at 900 ms; i (with callouts too) went down 80 ms after.
        XCTAssertEqual(Array(characters[5...6]), ["u", "i"])
        XCTAssertEqual(Array(s.lines("gesture").filter { $0.contains(" u ") }.prefix(2)), [
            "400ms u press character:u", "1100ms u release character:u",
        ])
        XCTAssertEqual(Array(s.trace.map(\.description).filter { $0.hasPrefix("4") }.prefix(9)), [
            "400ms in u down", "400ms gesture u press character:u", "400ms out u down", "400ms out u up",
            "450ms in q up", "450ms forward q up", "450ms out q up",
            "480ms in i down", "480ms gesture i press character:i",
        ])
    }

    /// Rollover cancels only the pending long press of keys held before: the same hold with no
    /// other key pressed opens the callout at exactly 500 ms.
    func testRolloverCancelsThePendingLongPress() {
        let held = simulate("d:o t:100 d:w t:30 u:w t:570 u:o")
        XCTAssertEqual(held.application.text, "ow")
        XCTAssertEqual(held.calloutOpens, 0)
        let alone = simulate("d:o t:700 u:o")
        XCTAssertEqual(alone.lines("gesture"), ["0ms o press character:o", "500ms o longPress character:o", "700ms o release character:o"])
        XCTAssertEqual(alone.calloutOpens, 1)
    }

    func testLongPressNeedsTheFullDelay() {
        XCTAssertEqual(simulate("d:e t:499 u:e d:2 u:2").application.text, "e2")
        XCTAssertEqual(simulate("d:e t:500 u:e d:2 u:2").application.text, "é")
    }

    func testGestureTimingIsConfigurable() {
        let fast = configuration { $0.gestures.longPressDelay = 200 }
        XCTAssertEqual(simulate("d:e t:250 u:e d:2 u:2", fast).application.text, "é")
    }

    func testRepeatOnBoundKey() {
        // Caps Lock bound to backspace: held 700 ms it deletes on press, at 600, 640 and 680 ms.
        let c = configuration { $0.bindings = KeyBindings([.alphabetic: [.capsLock: KeyBinding(press: .backspace)]]) }
        let s = simulate("d:a u:a d:b u:b d:c u:c d:d u:d d:f u:f d:g u:g d:capslock t:700 u:capslock", c)
        XCTAssertEqual(s.application.text, "ab")
        XCTAssertEqual(s.lines("gesture").filter { $0.contains("capslock") }, [
            "0ms capslock press backspace",
            "600ms capslock repeatPress backspace",
            "640ms capslock repeatPress backspace",
            "680ms capslock repeatPress backspace",
            "700ms capslock release backspace",
        ])
    }

    func testAnotherKeyStopsRepeat() {
        let c = configuration { $0.bindings = KeyBindings([.alphabetic: [.f1: KeyBinding(press: .text("x"))]]) }
        // .text does not repeat; .character does.
        XCTAssertEqual(simulate("d:f1 t:700 u:f1", c).application.text, "x")
        let r = configuration { $0.bindings = KeyBindings([.alphabetic: [.f1: KeyBinding(press: .character("x"))]]) }
        XCTAssertEqual(simulate("d:f1 t:650 d:q t:100 u:q u:f1", r).application.text, "xxxq")
    }

    func testDoubleTapOnBoundKey() {
        let c = configuration {
            $0.bindings = KeyBindings([.alphabetic: [.f1: KeyBinding([.press: .text("a"), .doubleTap: .text("!")])]])
        }
        let s = simulate("d:f1 t:50 u:f1 t:100 d:f1 t:50 u:f1", c)
        XCTAssertEqual(s.application.text, "aa!")
        XCTAssertEqual(s.lines("gesture"), [
            "0ms f1 press text:a", "50ms f1 release text:a",
            "150ms f1 press text:a", "200ms f1 release text:a", "200ms f1 doubleTap text:!",
        ])
        // Too slow: no double tap.
        XCTAssertEqual(simulate("d:f1 t:50 u:f1 t:250 d:f1 t:50 u:f1", c).application.text, "aa")
        // A third quick tap starts a new pair rather than doubling again.
        XCTAssertEqual(simulate("d:f1 u:f1 t:50 d:f1 u:f1 t:50 d:f1 u:f1", c).application.text, "aa!a")
    }

    func testLongPressBindingTapsItsAction() {
        let c = configuration {
            $0.bindings = KeyBindings([.alphabetic: [.capsLock: KeyBinding([.press: .none, .longPress: .key(.esc)])]])
        }
        let s = simulate("d:capslock t:600 u:capslock", c)
        XCTAssertEqual(s.lines("out"), ["500ms esc down", "500ms esc up"])
    }

    func testBoundModifierIsHeldUntilRelease() {
        let c = configuration { $0.bindings = KeyBindings([.alphabetic: [.capsLock: KeyBinding(press: .control)]]) }
        let s = simulate("d:capslock d:c u:c u:capslock", c)
        XCTAssertEqual(s.lines("out"), ["0ms leftctrl down", "0ms c down", "0ms c up", "0ms leftctrl up"])
        XCTAssertEqual(s.application.text, "\u{03}")
    }

    func testLayersSwitchBindings() {
        let c = configuration {
            $0.bindings = KeyBindings([
                .alphabetic: [.f1: KeyBinding(press: .keyboardType(.symbolic))],
                .symbolic: [.j: KeyBinding(press: .text("("))],
            ])
        }
        XCTAssertEqual(simulate("d:j u:j d:f1 u:f1 d:j u:j d:f1 u:f1 d:j u:j", c).application.text, "j(j")
    }

    /// One repeat policy: a forwarded key is held down on the output, which repeats it itself;
    /// the grabbed keyboard's kernel repeats are not passed on, so the trace is what the virtual
    /// keyboard is sent.
    func testForwardedKeysKeepOrderAndLeaveRepeatsToTheOutput() {
        let s = simulate("d:x r:x r:x u:x d:1 u:1")
        XCTAssertEqual(s.application.text, "x1")
        XCTAssertEqual(s.lines("out"), ["0ms x down", "0ms x up", "0ms 1 down", "0ms 1 up"])
    }

    func testUpOfNeverPressedKeyIsDropped() {
        let s = simulate("u:a u:e u:leftshift d:b u:b")
        XCTAssertEqual(s.lines("out"), ["0ms b down", "0ms b up"])
    }

    func testPanicEscapeCallsOut() {
        let s = Simulator()
        var panicked = 0
        s.engine.onPanic = { panicked += 1 }
        s.run(try! SimulationScript("d:backspace d:esc d:enter u:enter u:esc u:backspace"))
        XCTAssertEqual(panicked, 1)
        let s2 = Simulator()
        s2.engine.onPanic = { panicked += 1 }
        s2.run(try! SimulationScript("d:backspace d:esc u:esc d:enter u:enter u:backspace"))
        XCTAssertEqual(panicked, 1, "all three must be held together")
    }

    func testNextDeadlineFollowsHeldKey() {
        let s = Simulator()
        s.engine.handle(KeyEvent(.e, .down, at: .milliseconds(10)))
        XCTAssertEqual(s.engine.nextDeadline, .milliseconds(510))
        s.engine.handle(KeyEvent(.e, .up, at: .milliseconds(100)))
        XCTAssertNil(s.engine.nextDeadline, "an idle engine needs no timer")
    }

    func testPausedEngineForwardsEverything() {
        let s = Simulator()
        s.engine.isPaused = true
        s.run(try! SimulationScript("d:e t:600 u:e d:2 u:2"))
        XCTAssertEqual(s.application.text, "e2")
        XCTAssertEqual(s.calloutOpens, 0)
    }

    func testReleaseAllLetsGoOfEverything() {
        let s = Simulator()
        s.run(try! SimulationScript("d:leftshift d:x d:e t:600"))
        XCTAssertFalse(s.application.keyState.isEmpty)
        s.engine.releaseAll()
        XCTAssertTrue(s.application.keyState.isEmpty)
        XCTAssertNil(s.engine.nextDeadline)
        XCTAssertFalse(s.engine.services.calloutContext.isOpen)
        // The keys' physical releases afterwards change nothing.
        s.run(try! SimulationScript("u:x u:e u:leftshift d:a u:a"))
        XCTAssertEqual(s.application.text, "XEa")
    }
}
