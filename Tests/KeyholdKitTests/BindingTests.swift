import KeyholdKit
import KeyholdTestSupport
import XCTest

/// Bound keys as users write them in `[bindings]`: modifiers that become layer keys, gestures
/// added on top of a key's own press, Caps Lock bound elsewhere; and pausing. Cases that are only
/// a script and what it types or traces are fixtures in Tests/Fixtures/simulate (binding-*).
final class BindingTests: XCTestCase {
    private func bind(_ bindings: [KeyboardType: [KeyCode: KeyBinding]]) -> KeyholdConfiguration {
        configuration { $0.bindings = KeyBindings(bindings) }
    }

    /// Bindings given to a running engine apply from the next key, as those it started with (an
    /// unbound key is not looked up: the engine keeps the set of bound keys in step).
    func testBindingsChangedOnARunningEngineApply() {
        let s = Simulator()
        s.run(try! SimulationScript("d:j u:j"))
        s.engine.bindings = KeyBindings([.alphabetic: [.j: KeyBinding(press: .text("(")), .leftCtrl: KeyBinding(press: .escape)]])
        s.run(try! SimulationScript("d:j u:j d:leftctrl u:leftctrl"))
        s.engine.bindings = KeyBindings()
        s.run(try! SimulationScript("d:j u:j"))
        XCTAssertEqual(s.application.text, "j(j")
        XCTAssertEqual(s.application.events.filter { $0.key == .esc }.map(\.state), [.down, .up])
        XCTAssertFalse(s.application.events.contains { $0.key == KeyCode.leftCtrl }, "the bound Ctrl never reaches the output")
    }

    /// Caps Lock through a binding (double tap) turns on upper case for typing and callouts alike.
    func testCapsLockActionUpdatesTheContext() {
        let c = bind([.alphabetic: [.capsLock: KeyBinding([.press: .escape, .doubleTap: .capsLock])]])
        let s = simulate("d:capslock u:capslock t:50 d:capslock u:capslock t:50 d:e t:600 u:e d:2 u:2 d:a u:a", c)
        XCTAssertTrue(s.engine.services.keyboardContext.isCapsLockOn)
        XCTAssertTrue(s.application.isCapsLockOn)
        XCTAssertEqual(s.application.text, "ÉA")
    }

    /// Pausing lets every key through: an open callout closes keeping what it shows, and a key
    /// held at the moment of pausing does not open one later.
    func testPauseClosesTheCalloutAndDropsPendingLongPress() {
        let s = Simulator()
        s.run(try! SimulationScript("d:e t:600 u:e d:right u:right"))
        XCTAssertTrue(s.engine.services.calloutContext.isOpen)
        s.engine.isPaused = true
        XCTAssertFalse(s.engine.services.calloutContext.isOpen)
        s.run(try! SimulationScript("d:2 u:2 d:o t:10"))
        s.engine.isPaused = false
        s.run(try! SimulationScript("t:700 u:o d:1 u:1"))
        XCTAssertEqual(s.application.text, "è2o1")
        XCTAssertEqual(s.calloutOpens, 1)

        let held = Simulator()
        held.run(try! SimulationScript("d:o t:100"))
        held.engine.isPaused = true
        held.run(try! SimulationScript("t:600 u:o d:1 u:1"))
        XCTAssertEqual(held.application.text, "o1")
        XCTAssertEqual(held.calloutOpens, 0)
    }

    /// Forwarded keys get KeyboardKit's standard feedback too: a click for a letter, the delete
    /// sound for Backspace and its kernel repeats, the system sound for Enter.
    func testForwardedKeysGiveStandardFeedback() {
        let s = Simulator()
        let sounds = AudioFeedbackRecorder()
        s.engine.services.audioEngine = sounds
        s.run(try! SimulationScript("d:x u:x d:backspace r:backspace u:backspace d:enter u:enter d:space u:space"))
        XCTAssertEqual(s.lines("forward").filter { $0.hasSuffix("down") }.count, 4)
        XCTAssertEqual(sounds.played, [.input, .delete, .delete, .system, .input])
        s.engine.isPaused = true
        s.run(try! SimulationScript("d:x u:x"))
        XCTAssertEqual(sounds.played.count, 5, "paused: no feedback")
    }
}
