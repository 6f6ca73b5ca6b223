import KeyholdKit
import XCTest

/// Cases that are only a script and what it types or traces are fixtures in Tests/Fixtures/simulate.
final class CalloutTests: XCTestCase {
    /// A click on the picker's candidate 3 is as 3 pressed; 0 (the base) as Esc; a number that
    /// does not exist, or no callout open, does nothing.
    func testPickFromThePickerOnScreen() throws {
        let s = Simulator()
        try s.run("d:e t:600 u:e")
        s.engine.pickCallout(9)
        XCTAssertEqual(s.application.text, "e")
        s.engine.pickCallout(3)
        XCTAssertEqual(s.application.text, "ê")
        XCTAssertEqual(s.lines("callout").suffix(2), ["600ms move 3 ê", "600ms close ê"])
        s.engine.pickCallout(2)
        XCTAssertEqual(s.application.text, "ê", "closed: nothing more")
        try s.run("d:a t:600 u:a d:right u:right")
        s.engine.pickCallout(0)
        XCTAssertEqual(s.application.text, "êa")
    }

    /// A click elsewhere or a focus change closes the callout keeping what it shows: the next
    /// digit is typed, not picked.
    func testDismissKeepsWhatIsShown() throws {
        let s = Simulator()
        try s.run("d:e t:600 u:e d:right u:right")
        s.engine.dismissCallout()
        try s.run("d:2 u:2")
        XCTAssertEqual(s.application.text, "è2")
        XCTAssertEqual(s.lines("callout").last, "600ms close è")
    }

    /// `[callouts] timeout_ms = 0`: the callout never closes by itself, so the engine waits for
    /// nothing (closing when left alone is the fixture callout-closes-when-left-alone).
    func testCalloutWithoutATimeoutNeverCloses() throws {
        var configuration = KeyholdConfiguration()
        configuration.callouts.timeoutMilliseconds = 0
        let never = Simulator(configuration: configuration)
        XCTAssertEqual(try never.run("d:e t:600 u:e t:600000 d:2 u:2"), "é")
        XCTAssertNil(never.engine.nextDeadline, "nothing to wait for")
    }

    /// With Num Lock on (as its LED reports it) a keypad digit picks; Num Lock pressed on the
    /// keyboard turns it on as well (the fixture callout-keypad-digit-picks-after-num-lock-pressed).
    func testKeypadDigitSelectsWithNumLock() {
        let s = Simulator()
        s.engine.services.keyboardContext.isNumLockOn = true
        _ = try? s.run("d:o t:600 u:o d:kp5 u:kp5")
        XCTAssertEqual(s.application.text, "œ")
    }

    func testAltGrDoesNotCountAsShortcut() {
        var context = KeyboardContext()
        context.heldModifiers = [.altGr]
        XCTAssertFalse(context.isShortcutHeld)
        context = KeyboardContext()
        context.heldModifiers = [.meta]
        XCTAssertTrue(context.isShortcutHeld)
    }
}
