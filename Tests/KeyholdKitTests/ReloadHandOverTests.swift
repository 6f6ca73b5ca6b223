import KeyholdKit
import XCTest

/// A reload replaces the engine; what the user holds must not notice (docs/ARCHITECTURE.md, Configuration:
/// held keys, the layer and the locale survive a reload).
final class ReloadHandOverTests: XCTestCase {
    func engine(_ configuration: KeyholdConfiguration, _ app: SimulatedApplication) -> KeyholdEngine {
        KeyholdEngine(configuration: configuration, output: app)
    }

    /// Shift held across a reload that changes the configuration: the next letter is upper case,
    /// and releasing Shift after it leaves nothing held.
    func testShiftHeldAcrossAReload() {
        let app = SimulatedApplication()
        let old = engine(KeyholdConfiguration(), app)
        old.handle(KeyEvent(.leftShift, .down, at: .milliseconds(0)))
        let held = old.handOver()
        XCTAssertEqual(held.forwarded, [.leftShift])
        let new = engine(configuration { $0.callouts.custom = ["e": ["ê"]] }, app)
        new.takeOver(held)
        new.handle(KeyEvent(.a, .down, at: .milliseconds(100)))
        new.handle(KeyEvent(.a, .up, at: .milliseconds(150)))
        XCTAssertEqual(app.text, "A")
        XCTAssertTrue(new.services.keyboardContext.heldModifiers.contains(.shift))
        new.handle(KeyEvent(.leftShift, .up, at: .milliseconds(200)))
        XCTAssertTrue(app.keyState.downKeys.isEmpty)
        XCTAssertTrue(new.services.keyboardContext.heldModifiers.isEmpty)
        XCTAssertEqual(app.events.filter { $0.key == .leftShift }.map(\.state), [.down, .up], "Shift never lifted by the reload")
    }

    /// What the old engine itself held (a dual-role Ctrl, a callout's key) is let go; the physical
    /// releases that follow reach the new engine and do nothing.
    func testTheOldEnginesOwnHoldsAreLetGo() {
        let app = SimulatedApplication()
        let old = engine(configuration {
            $0.bindings = KeyBindings([.alphabetic: [.capsLock: KeyBinding(tap: .escape, hold: .control)]])
        }, app)
        old.handle(KeyEvent(.capsLock, .down, at: .milliseconds(0)))
        old.handle(KeyEvent(.e, .down, at: .milliseconds(10)))
        XCTAssertEqual(Set(app.keyState.downKeys), [.leftCtrl, .e])
        let new = engine(KeyholdConfiguration(), app)
        new.takeOver(old.handOver())
        XCTAssertEqual(app.keyState.downKeys, [.e], "the Ctrl of the hold is released; e was passed through (a shortcut)")
        new.handle(KeyEvent(.capsLock, .up, at: .milliseconds(700)))
        new.handle(KeyEvent(.e, .up, at: .milliseconds(710)))
        new.advance(to: .milliseconds(2000))
        XCTAssertTrue(app.keyState.downKeys.isEmpty)
        XCTAssertFalse(app.events.contains { $0.key == .esc }, "no tap after a reload")
    }

    /// The layer and the locale stay when the new configuration has them.
    func testLayerAndLocaleSurvive() {
        let app = SimulatedApplication()
        let config = configuration {
            $0.callouts.locales = ["en", "fr"]
            $0.bindings = KeyBindings([
                .alphabetic: [.f1: KeyBinding(press: .keyboardType(.symbolic)), KeyCode(61): KeyBinding(press: .nextLocale)],
                .symbolic: [.j: KeyBinding(press: .text("("))],
            ])
        }
        let old = engine(config, app)
        for key in [KeyCode.f1, KeyCode(61)] {
            old.handle(KeyEvent(key, .down, at: .milliseconds(0)))
            old.handle(KeyEvent(key, .up, at: .milliseconds(10)))
        }
        let new = engine(config, app)
        new.takeOver(old.handOver())
        XCTAssertEqual(new.services.keyboardContext.keyboardType, KeyboardType.symbolic)
        XCTAssertEqual(new.services.keyboardContext.locale, "fr")
        new.handle(KeyEvent(.j, .down, at: .milliseconds(100)))
        new.handle(KeyEvent(.j, .up, at: .milliseconds(110)))
        XCTAssertEqual(app.text, "(")
        // A locale the new configuration drops falls back to its first.
        let english = engine(KeyholdConfiguration(), app)
        english.takeOver(new.handOver())
        XCTAssertEqual(english.services.keyboardContext.locale, "en")
    }
}
