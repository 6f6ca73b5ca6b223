import KeyholdKit
import XCTest

final class CalloutTests: XCTestCase {
    func testHoldEThenTwoTypesEAcute() {
        let s = simulate("d:e t:600 u:e t:50 d:2 t:30 u:2")
        XCTAssertEqual(s.application.text, "é")
        XCTAssertEqual(s.lines("gesture"), [
            "0ms e press character:e",
            "500ms e longPress character:e",
            "600ms e release character:e",
        ])
        XCTAssertEqual(s.lines("callout"), [
            "500ms open e 1è 2é 3ê 4ë 5ē 6ė 7ę",
            "650ms move 2 é",
            "650ms close é",
        ])
        // e typed on press; then backspace and é by the console method (Alt + keypad 2 3 3).
        XCTAssertEqual(s.lines("out"), [
            "0ms e down", "0ms e up",
            "650ms backspace down", "650ms backspace up",
            "650ms leftalt down", "650ms kp2 down", "650ms kp2 up", "650ms kp3 down", "650ms kp3 up",
            "650ms kp3 down", "650ms kp3 up", "650ms leftalt up",
        ])
        XCTAssertTrue(s.application.keyState.isEmpty)
    }

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

    /// Left alone for `[callouts] timeout_ms` (10 s by default) the callout closes keeping what
    /// it shows: a digit long after is typed, not picked. Every key or move restarts the wait.
    func testCalloutClosesWhenLeftAlone() throws {
        let idle = simulate("d:e t:600 u:e t:11000 d:2 u:2")
        XCTAssertEqual(idle.application.text, "e2")
        // 10 s after the last key (releasing e at 600 ms).
        XCTAssertEqual(idle.lines("callout"), ["500ms open e 1è 2é 3ê 4ë 5ē 6ė 7ę", "10600ms close e"])
        XCTAssertEqual(simulate("d:e t:600 u:e t:5000 d:right u:right t:9000 d:2 u:2").application.text, "é")

        var configuration = KeyholdConfiguration()
        configuration.callouts.timeoutMilliseconds = 0
        let never = Simulator(configuration: configuration)
        XCTAssertEqual(try never.run("d:e t:600 u:e t:600000 d:2 u:2"), "é")
        XCTAssertNil(never.engine.nextDeadline, "nothing to wait for")
    }

    func testSelectionWhileKeyStillHeld() {
        XCTAssertEqual(simulate("d:e t:700 d:3 u:3 u:e").application.text, "ê")
    }

    /// With Num Lock on (as its LED reports it) a keypad digit picks; Num Lock pressed on the
    /// keyboard turns it on as well.
    func testKeypadDigitSelectsWithNumLock() {
        let s = Simulator()
        s.engine.services.keyboardContext.isNumLockOn = true
        _ = try? s.run("d:o t:600 u:o d:kp5 u:kp5")
        XCTAssertEqual(s.application.text, "œ")
        XCTAssertEqual(simulate("d:numlock u:numlock d:o t:600 u:o d:kp5 u:kp5").application.text, "œ")
    }

    func testArrowsPreviewThenEnterKeepsShown() {
        let s = simulate("d:e t:600 u:e d:right u:right d:right u:right d:left u:left d:right u:right d:enter u:enter")
        XCTAssertEqual(s.application.text, "é")
        XCTAssertEqual(s.lines("callout"), [
            "500ms open e 1è 2é 3ê 4ë 5ē 6ė 7ę",
            "600ms move 1 è", "600ms move 2 é", "600ms move 1 è", "600ms move 2 é",
            "600ms close é",
        ])
        // Enter is consumed: no newline reaches the program.
        XCTAssertFalse(s.lines("out").contains("600ms enter down"))
    }

    func testTabAndSameLetterMoveForwardShiftTabBack() {
        XCTAssertEqual(simulate("d:a t:600 u:a d:tab u:tab d:a u:a d:enter u:enter").application.text, "á")
        XCTAssertEqual(simulate("d:a t:600 u:a d:tab u:tab d:tab u:tab d:leftshift d:tab u:tab u:leftshift d:enter u:enter").application.text, "à")
    }

    func testLeftFromBaseWrapsToLastCandidate() {
        XCTAssertEqual(simulate("d:e t:600 u:e d:left u:left d:enter u:enter").application.text, "ę")
    }

    func testEscapeRestoresBase() {
        let s = simulate("d:e t:600 u:e d:right u:right d:right u:right d:esc u:esc")
        XCTAssertEqual(s.application.text, "e")
        XCTAssertEqual(s.lines("callout").last, "600ms close e")
        XCTAssertFalse(s.lines("out").contains { $0.hasSuffix("esc down") }, "Esc is consumed")
    }

    /// A candidate of two code points (Lithuanian ą̃ = ą + U+0303) is typed as two and deleted
    /// with two Backspaces, so moving past it and Esc leave exactly what they should.
    func testCandidateOfTwoCodePoints() {
        let lt = configuration { $0.callouts.locales = ["lt"] }
        let right = Array(repeating: "d:right u:right", count: 6).joined(separator: " ")
        XCTAssertEqual(simulate("d:a t:600 u:a \(right) d:enter u:enter", lt).application.text, "ą\u{303}")
        XCTAssertEqual(simulate("d:a t:600 u:a \(right) d:right u:right d:enter u:enter", lt).application.text, "a")
        XCTAssertEqual(simulate("d:a t:600 u:a \(right) d:esc u:esc", lt).application.text, "a")
    }

    func testTypeThroughKeepsShownAndTypesTheKey() {
        XCTAssertEqual(simulate("d:e t:600 u:e d:right u:right d:x u:x d:y u:y").application.text, "èxy")
        // A digit beyond the candidates closes and types itself.
        XCTAssertEqual(simulate("d:l t:600 u:l d:5 u:5").application.text, "l5")
        // Backspace is a key like any other: it closes, then deletes what is shown.
        XCTAssertEqual(simulate("d:e t:600 u:e d:right u:right d:backspace u:backspace").application.text, "")
        // Space types through.
        XCTAssertEqual(simulate("d:u t:600 u:u d:2 u:2 d:space u:space").application.text, "ü ")
    }

    func testShiftGivesUppercaseCandidates() {
        let s = simulate("d:leftshift d:a t:600 u:a d:2 u:2 u:leftshift")
        XCTAssertEqual(s.application.text, "Á")
        XCTAssertEqual(s.lines("callout").first, "500ms open A 1À 2Á 3Â 4Ä 5Æ 6Ã 7Å 8Ā")
        XCTAssertTrue(s.application.keyState.isEmpty)
    }

    func testCapsLockGivesUppercaseAndSharpSPerCharacter() {
        let s = simulate("d:capslock u:capslock d:s t:600 u:s d:1 u:1 d:capslock u:capslock d:s u:s")
        XCTAssertEqual(s.lines("callout").first, "500ms open S 1ẞ 2Ś 3Š")
        XCTAssertEqual(s.application.text, "ẞs")
        // Shift with Caps Lock on gives lower case again.
        XCTAssertEqual(simulate("d:capslock u:capslock d:leftshift d:s t:600 u:s u:leftshift d:1 u:1").application.text, "ß")
    }

    func testCtrlHeldLongIsShortcutNotCallout() {
        let s = simulate("d:leftctrl d:e t:700 u:e u:leftctrl")
        XCTAssertEqual(s.calloutOpens, 0)
        XCTAssertEqual(s.lines("out"), ["0ms leftctrl down", "0ms e down", "700ms e up", "700ms leftctrl up"])
        XCTAssertEqual(s.application.text, "\u{05}")
        // Ctrl+C held long arrives as Ctrl+C, held down on the output until released (the virtual
        // keyboard repeats it; the grabbed keyboard's kernel repeats are not passed on).
        let c = simulate("d:leftctrl d:c t:600 r:c t:40 r:c u:c u:leftctrl")
        XCTAssertEqual(c.application.text, "\u{03}")
        XCTAssertEqual(c.lines("out"), ["0ms leftctrl down", "0ms c down", "640ms c up", "640ms leftctrl up"])
    }

    func testAltGrDoesNotCountAsShortcut() {
        var context = KeyboardContext()
        context.heldModifiers = [.altGr]
        XCTAssertFalse(context.isShortcutHeld)
        context = KeyboardContext()
        context.heldModifiers = [.meta]
        XCTAssertTrue(context.isShortcutHeld)
    }

    func testKernelRepeatsOfHandledKeysAreDropped() {
        let s = simulate("d:e t:250 r:e t:40 r:e t:40 r:e t:300 u:e d:esc u:esc")
        XCTAssertEqual(s.application.text, "e")
    }

    func testCalloutsOffMeansEveryLetterIsForwarded() {
        let s = simulate("d:e t:700 r:e u:e", configuration { $0.callouts.enabled = false })
        XCTAssertEqual(s.calloutOpens, 0)
        XCTAssertEqual(s.lines("out"), ["0ms e down", "700ms e up"])
    }

    func testCustomCandidatesReplaceTheLocale() {
        let s = simulate("d:e t:600 u:e d:2 u:2", configuration { $0.callouts.custom = ["e": ["€", "ə"]] })
        XCTAssertEqual(s.application.text, "ə")
    }
}
