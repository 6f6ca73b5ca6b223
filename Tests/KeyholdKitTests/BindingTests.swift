import KeyholdKit
import XCTest

/// Bound keys as users write them in `[bindings]`: modifiers that become layer keys, gestures
/// added on top of a key's own press, Caps Lock bound elsewhere; and pausing.
final class BindingTests: XCTestCase {
    private func bind(_ bindings: [KeyboardType: [KeyCode: KeyBinding]]) -> KeyholdConfiguration {
        configuration { $0.bindings = KeyBindings(bindings) }
    }

    /// `rightalt = { press = "keyboardType:symbolic" }`, the README's example: a bound modifier is
    /// handled by its binding and is not held as a modifier on the output.
    func testBoundModifierKeySwitchesLayer() {
        let c = bind([
            .alphabetic: [.rightAlt: KeyBinding(press: .keyboardType(.symbolic))],
            .symbolic: [.j: KeyBinding(press: .text("("))],
        ])
        let s = simulate("d:j u:j d:rightalt u:rightalt d:j u:j d:rightalt u:rightalt d:j u:j", c)
        XCTAssertEqual(s.application.text, "j(j")
        XCTAssertFalse(s.application.events.contains { $0.key == KeyCode.rightAlt }, "the bound key never reaches the output")
        XCTAssertEqual(s.lines("gesture").filter { $0.contains("rightalt press") }.count, 2)
    }

    /// `leftctrl = "escape"`: the bound Ctrl is Escape, so it neither forwards Ctrl nor turns the
    /// next key into a shortcut.
    func testBoundCtrlIsNotAShortcutModifier() {
        let s = simulate("d:leftctrl d:e t:600 u:e u:leftctrl d:2 u:2", bind([.alphabetic: [.leftCtrl: KeyBinding(press: .escape)]]))
        XCTAssertEqual(s.application.events.filter { $0.key == .leftCtrl }.count, 0)
        XCTAssertEqual(s.application.events.filter { $0.key == .esc }.map(\.state), [.down, .up])
        XCTAssertEqual(s.calloutOpens, 1, "e long-pressed with the bound Ctrl down still opens its callout")
        XCTAssertEqual(s.application.text, "é")
        // Unbound, Ctrl+e held long is the shortcut Ctrl+E, as before.
        let shortcut = simulate("d:leftctrl d:e t:600 u:e u:leftctrl")
        XCTAssertEqual(shortcut.calloutOpens, 0)
        XCTAssertEqual(shortcut.application.text, "\u{05}")
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

    /// A binding that names only other gestures keeps the key's own press: j types j and its
    /// long press adds text; e keeps its callouts and gains a double tap.
    func testBindingWithoutPressKeepsTheKeysOwnPress() {
        let c = bind([.alphabetic: [
            .j: KeyBinding([.longPress: .text("LONG")]),
            .e: KeyBinding([.doubleTap: .text("!")]),
            .f1: KeyBinding([.longPress: .text("F")]),
        ]])
        XCTAssertEqual(simulate("d:j u:j d:j t:600 u:j", c).application.text, "jjLONG")
        XCTAssertEqual(simulate("d:e u:e t:50 d:e u:e", c).application.text, "ee!")
        XCTAssertEqual(simulate("d:e t:600 u:e d:2 u:2", c).application.text, "é")
        // A key that types nothing goes out as itself on press, down until its release.
        let f = simulate("d:f1 t:100 u:f1", c)
        XCTAssertEqual(f.application.events.filter { $0.key == .f1 }.map(\.state), [.down, .up])
        XCTAssertEqual(f.lines("gesture"), ["0ms f1 press key:f1", "100ms f1 release key:f1"])
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
        final class Sounds: AudioFeedbackEngine {
            var played: [AudioFeedback] = []
            func play(_ feedback: AudioFeedback) { played.append(feedback) }
        }
        let s = Simulator()
        let sounds = Sounds()
        s.engine.services.audioEngine = sounds
        s.run(try! SimulationScript("d:x u:x d:backspace r:backspace u:backspace d:enter u:enter d:space u:space"))
        XCTAssertEqual(s.lines("forward").filter { $0.hasSuffix("down") }.count, 4)
        XCTAssertEqual(sounds.played, [.input, .delete, .delete, .system, .input])
        s.engine.isPaused = true
        s.run(try! SimulationScript("d:x u:x"))
        XCTAssertEqual(sounds.played.count, 5, "paused: no feedback")
    }
}
