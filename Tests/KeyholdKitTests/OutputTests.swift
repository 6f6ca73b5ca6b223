import KeyholdKit
import XCTest

final class OutputTests: XCTestCase {
    func typed(_ text: String, method: UnicodeMethod, capsLock: Bool = false, held: [KeyCode] = []) -> SimulatedApplication {
        let app = SimulatedApplication()
        let context = KeyboardContext()
        context.isCapsLockOn = capsLock
        let controller = StandardKeyboardController(
            planner: KeystrokePlanner(layout: USLayout(), unicodeMethod: method), output: app, keyboardContext: context)
        if capsLock { app.send(.capsLock, .down); app.send(.capsLock, .up) }
        for key in held { controller.keyDown(key) }
        controller.insertText(text)
        for key in held { controller.keyUp(key) }
        return app
    }

    /// The key set covers every key code (its words are fixed in size, not grown on demand):
    /// the first and last codes, and codes past the end are ignored.
    func testOutputKeyStateCoversEveryKeyCode() {
        var keys = OutputKeyState()
        XCTAssertTrue(keys.isEmpty)
        let last = KeyCode(UInt16(KeyCode.count - 1))
        for key in [KeyCode(0), .x, KeyCode(64), last, KeyCode(UInt16(KeyCode.count))] { keys.set(key, down: true) }
        XCTAssertEqual(keys.downKeys, [KeyCode(0), .x, KeyCode(64), last])
        XCTAssertFalse(keys.isDown(KeyCode(UInt16(KeyCode.count))))
        keys.set(last, down: false)
        XCTAssertFalse(keys.contains(last))
        XCTAssertEqual(keys.downKeys.count, 3)
        XCTAssertEqual(PerKeyCode<UInt8>.count, KeyCode.count, "per-key tables have an entry for every code")
    }

    /// Whether any key is down is kept per word of 64 codes: a word counts until its last key is up.
    func testOutputKeyStateIsEmptyOnceTheLastKeyOfAWordIsUp() {
        var keys = OutputKeyState()
        keys.set(.x, down: true); keys.set(.e, down: true); keys.set(KeyCode(700), down: true)
        keys.set(.x, down: false); keys.set(KeyCode(700), down: false)
        XCTAssertFalse(keys.isEmpty)
        XCTAssertTrue(keys.isDown(.e))
        XCTAssertFalse(keys.isDown(.x))
        keys.set(.e, down: false)
        XCTAssertTrue(keys.isEmpty)
        keys.set(.e, down: false)
        XCTAssertTrue(keys.isEmpty, "a key released twice")
        XCTAssertFalse(keys.isDown(.e))
    }

    func testEveryMethodTypesAnyUnicode() {
        let text = "Hello, wörld! é ẞ ę € 😀 ~{}"
        for method in UnicodeMethod.allCases {
            let app = typed(text, method: method)
            XCTAssertEqual(app.text, text, "\(method)")
            XCTAssertTrue(app.keyState.isEmpty, "\(method)")
        }
    }

    func testConsoleMethodKeystrokes() {
        let app = typed("é", method: .console)
        XCTAssertEqual(app.events.map { "\($0.key) \($0.state)" }, [
            "leftalt down", "kp2 down", "kp2 up", "kp3 down", "kp3 up", "kp3 down", "kp3 up", "leftalt up",
        ])
    }

    func testCtrlShiftUKeystrokes() {
        let app = typed("é", method: .ctrlShiftU)
        XCTAssertEqual(app.events.map { "\($0.key) \($0.state)" }, [
            "leftctrl down", "leftshift down", "u down", "u up", "leftshift up", "leftctrl up",
            "e down", "e up", "9 down", "9 up", "space down", "space up",
        ])
    }

    /// The session method hands the characters the layout lacks to the companion, with every
    /// held modifier lifted first (Ctrl+é would be a shortcut), and a ctrl-shift-u fallback.
    func testSessionMethodHandsOffWithModifiersLifted() {
        final class Companion: OutputCompanion {
            var texts: [String] = []
            var commitsText = false
            weak var queue: OutputQueue?
            func type(_ text: String, id: UInt64, after: UInt64, keysWrittenAt: Timestamp?) { texts.append(text); queue?.acknowledge(id) }
        }
        let app = SimulatedApplication()
        let queue = OutputQueue(sink: app, pacing: .init(burst: 1000), clock: { .zero })
        let companion = Companion()
        companion.queue = queue
        queue.companion = companion
        queue.handOffSettleMicroseconds = 0
        let context = KeyboardContext()
        let controller = StandardKeyboardController(
            planner: KeystrokePlanner(layout: USLayout(), unicodeMethod: .session), output: queue, keyboardContext: context)
        controller.keyDown(.leftCtrl)
        controller.insertText("aé€")
        controller.keyUp(.leftCtrl)
        XCTAssertEqual(companion.texts, ["é€"], "what one batch hands off goes as one text")
        XCTAssertEqual(app.events.map { "\($0.key) \($0.state)" }, [
            "leftctrl down", "leftctrl up", "a down", "a up", "leftctrl down", "leftctrl up",
        ])
        // A companion that commits strings (an input method) gets the whole text, its ASCII
        // included: nothing of it takes the keyboard's way in, which could overtake the rest.
        companion.commitsText = true
        companion.texts = []
        let before = app.events.count
        controller.insertText("aé€")
        controller.insertText("b")
        queue.drain()
        XCTAssertEqual(companion.texts, ["aé€"])
        XCTAssertEqual(app.events.dropFirst(before).map { "\($0.key) \($0.state)" }, ["b down", "b up"], "one character the layout has is a key")
        // ... as all of a text the layout has, and one character it types only with Shift when
        // Shift is not held; with Shift held, a key.
        companion.texts = []
        controller.insertText("ok")
        queue.drain()
        controller.insertText("O")
        queue.drain()
        XCTAssertEqual(companion.texts, ["ok", "O"])
        companion.texts = []
        let held = app.events.count
        controller.keyDown(.leftShift)
        controller.insertText("B")
        controller.keyUp(.leftShift)
        queue.drain()
        XCTAssertEqual(companion.texts, [])
        XCTAssertEqual(app.events.dropFirst(held).map { "\($0.key) \($0.state)" }, ["leftshift down", "b down", "b up", "leftshift up"])
        companion.commitsText = false
        // Without a companion the same text arrives through ctrl-shift-u.
        queue.companion = nil
        controller.insertText("é")
        queue.drain()   // as the daemon does at the end of every batch
        XCTAssertEqual(app.text.suffix(1), "é")
        XCTAssertTrue(app.keyState.isEmpty)
    }

    func testComposeMethodAndTable() {
        let app = typed("é", method: .compose)
        XCTAssertEqual(app.events.filter { $0.state == .down }.map(\.key.name), ["compose", "compose", "0", "0", "0", "0", "e", "9"])
        let table = ComposeTable.file(for: "aé€é".map { $0 })
        XCTAssertTrue(table.contains("<Multi_key> <Multi_key> <0> <0> <0> <0> <e> <9> : \"é\" U00E9\n"))
        XCTAssertTrue(table.contains("<Multi_key> <Multi_key> <0> <0> <2> <0> <a> <c> : \"€\" U20AC\n"))
        XCTAssertEqual(table.components(separatedBy: "\n").filter { $0.hasPrefix("<Multi_key>") }.count, 2, "ASCII and duplicates are left out")
        // A candidate of two code points (Lithuanian ą̃) needs both in the table.
        let lt = ComposeTable.file(for: ["ą\u{303}"])
        XCTAssertTrue(lt.contains("<Multi_key> <Multi_key> <0> <0> <0> <1> <0> <5> : \"ą\" U0105\n"))
        XCTAssertTrue(lt.contains("<Multi_key> <Multi_key> <0> <0> <0> <3> <0> <3> : \"\u{303}\" U0303\n"))
    }

    func testHeldShiftIsLiftedForLowercaseAndRestored() {
        let app = typed("a", method: .console, held: [.leftShift])
        XCTAssertEqual(app.events.map { "\($0.key) \($0.state)" }, [
            "leftshift down", "leftshift up", "a down", "a up", "leftshift down", "leftshift up",
        ])
        XCTAssertEqual(app.text, "a")
    }

    func testCapsLockFlipsShiftForLettersOnly() {
        XCTAssertEqual(typed("aB1!", method: .console, capsLock: true).text, "aB1!")
        // One ASCII character at a time, as keys type them (the layout's table, not the plan).
        for text in ["a", "B", "1", "!", "~"] {
            XCTAssertEqual(typed(text, method: .console, capsLock: true).text, text)
            XCTAssertEqual(typed(text, method: .console, capsLock: true, held: [.rightShift]).text, text, "Shift held")
        }
        let e = typed("é", method: .console, capsLock: true)
        XCTAssertEqual(e.events.dropFirst(2).first?.key, .leftAlt, "not ASCII: the Unicode method")
        XCTAssertEqual(e.text, "é")
    }

    func testUSLayoutBothWays() {
        let us = USLayout()
        for scalar in 0x20...0x7e {
            let c = Character(Unicode.Scalar(UInt8(scalar)))
            guard let stroke = us.keystroke(for: c) else { return XCTFail("US cannot type \(c)") }
            XCTAssertEqual(us.character(for: stroke.key, modifiers: stroke.modifiers), c)
        }
        XCTAssertNil(us.keystroke(for: "é"))
        XCTAssertEqual(us.character(for: .a, modifiers: [], capsLock: true), "A")
        XCTAssertEqual(us.character(for: .one, modifiers: [], capsLock: true), "1")
    }

    func testScriptErrorsNameTheStep() {
        XCTAssertThrowsError(try SimulationScript("d:e t:x")) { error in
            XCTAssertEqual("\(error)", "step 2 't:x': time must be a whole number of milliseconds")
        }
        XCTAssertThrowsError(try SimulationScript("d:leftshfit")) { error in
            XCTAssertEqual("\(error)", "step 1 'd:leftshfit': unknown key 'leftshfit' (did you mean 'leftshift'?)")
        }
        XCTAssertThrowsError(try SimulationScript("e")) { error in
            XCTAssertEqual("\(error)", "step 1 'e': expected d:KEY, u:KEY, r:KEY or t:MS")
        }
    }

    func testKeyNames() {
        XCTAssertEqual(KeyCode(name: "KEY_ESC"), .esc)
        XCTAssertEqual(KeyCode(name: "LeftShift"), .leftShift)
        XCTAssertEqual(KeyCode(name: "kp2"), .kp2)
        XCTAssertEqual(KeyCode.e.name, "e")
        XCTAssertNil(KeyCode(name: "nosuchkey"))
    }

    /// An application id a companion reports meets every rule's glob: a pattern of many stars
    /// against a long id that does not match must not take exponential time (the matcher was
    /// recursive, one level per star, and tried every split of the id).
    func testGlobWithManyStarsOnALongTextEndsAtOnce() {
        let id = String(repeating: "a", count: 256)
        XCTAssertFalse(Glob.matches("*a*a*a*a*a*a*a*a*a*a*a*a*b", id))
        XCTAssertTrue(Glob.matches("*a*a*a*a*a*a*a*a*a*a*a*a*", id))
        XCTAssertTrue(Glob.matches("a*[ab]?", "aXYab"))
        XCTAssertFalse(Glob.matches("a*[!ab]", "aXYab"))
        XCTAssertTrue(Glob.matches("[", "["), "an unclosed class is a plain [")
        XCTAssertTrue(Glob.matches("*", ""))
        XCTAssertFalse(Glob.matches("?", ""))
    }

    func testGlobAndDevicePatterns() {
        XCTAssertTrue(Glob.matches("AT * keyboard", "AT Translated Set 2 keyboard"))
        XCTAssertTrue(Glob.matches("*[Kk]eyboard", "USB Keyboard"))
        XCTAssertFalse(Glob.matches("*[!K]eyboard", "USB Keyboard"))
        XCTAssertFalse(Glob.matches("Logi?", "Logitech"))
        XCTAssertEqual(DevicePattern("046d:c52b"), .id(vendor: 0x046d, product: 0xc52b))
        XCTAssertEqual(DevicePattern("phys:usb-*"), .phys("usb-*"))
        XCTAssertEqual(DevicePattern("My kbd"), .name("My kbd"))
        var devices = KeyholdConfiguration.DeviceSettings()
        XCTAssertTrue(devices.accepts(name: "k", vendor: 1, product: 2, phys: "", isKeyboard: true))
        XCTAssertFalse(devices.accepts(name: "mouse", vendor: 1, product: 2, phys: "", isKeyboard: false))
        devices.exclude = [DevicePattern("0001:0002")]
        XCTAssertFalse(devices.accepts(name: "k", vendor: 1, product: 2, phys: "", isKeyboard: true))
        devices = .init(); devices.include = [DevicePattern("mouse")]
        XCTAssertTrue(devices.accepts(name: "mouse", vendor: 1, product: 2, phys: "", isKeyboard: false))
        XCTAssertFalse(devices.accepts(name: "k", vendor: 1, product: 2, phys: "", isKeyboard: true))
    }
}
