import Foundation
import XCTest
@testable import KeyholdKit

final class ConfigurationTests: XCTestCase {
    static let file = "/etc/keyhold/config.toml"

    /// The error loading `text` throws; fails the test when it loads.
    func loadError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> ConfigurationError? {
        do {
            let configuration = try ConfigurationLoader.load(text: text, file: Self.file)
            XCTFail("expected an error, loaded \(configuration)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    /// Asserts the error's line, key, suggestion and printed form.
    func assertError(_ text: String, line: Int, key: String?, message: String? = nil, suggestion: String? = nil,
                     description: String, file: StaticString = #filePath, testLine: UInt = #line) {
        guard let error = loadError(text, file: file, line: testLine) else { return }
        XCTAssertEqual(error.file, Self.file, file: file, line: testLine)
        XCTAssertEqual(error.line, line, "line", file: file, line: testLine)
        XCTAssertEqual(error.key, key, "key", file: file, line: testLine)
        if let message { XCTAssertEqual(error.message, message, "message", file: file, line: testLine) }
        XCTAssertEqual(error.suggestion, suggestion, "suggestion", file: file, line: testLine)
        XCTAssertEqual(error.description, description, file: file, line: testLine)
    }

    // MARK: - The default

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    func testEmbeddedDefaultIsTheDocumentedFileByteForByte() throws {
        let data = try Data(contentsOf: Self.repositoryRoot.appendingPathComponent("config/keyhold.toml"))
        let embedded = Data(ConfigurationLoader.defaultText.utf8)
        XCTAssertEqual(embedded.count, data.count, "config/keyhold.toml and DefaultConfiguration.swift differ in length")
        XCTAssertEqual(embedded, data, "config/keyhold.toml and DefaultConfiguration.swift differ")
    }

    func testDefaultLoadsToTheModelDefaults() throws {
        let configuration = try ConfigurationLoader.load(text: ConfigurationLoader.defaultText, file: "(default)")
        XCTAssertEqual(configuration, KeyholdConfiguration())
        XCTAssertEqual(ConfigurationLoader.defaultConfiguration, KeyholdConfiguration())
        let documented = try String(contentsOf: Self.repositoryRoot.appendingPathComponent("config/keyhold.toml"), encoding: .utf8)
        XCTAssertEqual(try ConfigurationLoader.load(text: documented, file: "config/keyhold.toml"), KeyholdConfiguration())
        XCTAssertEqual(ConfigurationLoader.validate(text: ConfigurationLoader.defaultText, file: "(default)"), [])
    }

    func testEmptyTextIsTheDefault() throws {
        XCTAssertEqual(try ConfigurationLoader.load(text: "", file: "empty.toml"), KeyholdConfiguration())
        XCTAssertEqual(try ConfigurationLoader.load(text: "# nothing\n[bindings]\n[callouts.custom]\n", file: "x"), KeyholdConfiguration())
    }

    /// The default documents every key the loader accepts.
    func testDefaultNamesEveryKeyOfTheSchema() {
        let locator = try! TOMLDocument(text: ConfigurationLoader.defaultText)
        for (table, keys) in ConfigurationLoader.schema where table != "feedback.override" && table != "apps" {
            for key in keys where key != "override" && key != "custom" {
                XCTAssertNotNil(locator.line(of: "\(table).\(key)"), "\(table).\(key) is not in config/keyhold.toml")
            }
        }
        for key in ConfigurationLoader.keys(of: "feedback.override") {
            XCTAssertTrue(ConfigurationLoader.defaultText.contains("# \(key) = "), "override key \(key) is not documented")
        }
        for key in ConfigurationLoader.keys(of: "apps") {
            XCTAssertTrue(ConfigurationLoader.defaultText.contains("# \(key) = "), "application rule key \(key) is not documented")
        }
    }

    // MARK: - A full configuration

    static let full = #"""
    # Every option set.
    [devices]
    include = ["*Keychron*", "046D:C52B", "phys:usb-0000:00:14.0-*"]
    exclude = ["Yubico*"]

    [gestures]
    long_press_ms = 350
    repeat_delay_ms = 400
    repeat_interval_ms = 30
    double_tap_ms = 250

    [callouts]
    enabled = false
    locales = ["fr", "de-CH"]

    [callouts.custom]
    e = ["é", "è"]
    "$" = ["€", "£"]
    o = []

    [output]
    layout = "de"
    variant = "nodeadkeys"
    options = "compose:ralt"
    unicode_method = "ctrl-shift-u"
    compose_key = "RightAlt"
    pace_us = 250

    [bindings]
    capslock = "escape"
    KEY_RIGHTMETA = { press = "keyboardType:symbolic", release = "keyboardType:alphabetic" }
    f13 = "text:hello"
    a = { press = "character:a", long_press = "custom:menu", double_tap = "key:f13", repeat_press = "none" }
    rightctrl = "keyboardType:nav"

    [bindings.f14]
    press = "primary:done"

    [layers.symbolic]
    j = "character:("

    [layers.nav]
    h = "moveCursorBackward"
    l = { press = "moveCursorForward" }

    [feedback]
    audio = false
    haptic = true
    volume = 1
    audio_device = "hw:1,0"
    haptic_device = "*Joy-Con*"

    [[feedback.override]]
    action = "backspace"
    gesture = "long_press"
    audio = "/usr/share/sounds/erase.wav"
    haptic = "none"

    [[feedback.override]]
    gesture = "double_tap"
    haptic = "heavyImpact"
    """#

    func testFullConfigurationLoadsEveryValue() throws {
        let c = try ConfigurationLoader.load(text: Self.full, file: "full.toml")

        XCTAssertEqual(c.devices.include, [.name("*Keychron*"), .id(vendor: 0x046d, product: 0xc52b), .phys("usb-0000:00:14.0-*")])
        XCTAssertEqual(c.devices.exclude, [.name("Yubico*")])

        XCTAssertEqual(c.gestures, GestureSettings(longPressDelay: 350, repeatDelay: 400, repeatInterval: 30, doubleTapInterval: 250))

        XCTAssertFalse(c.callouts.enabled)
        XCTAssertEqual(c.callouts.locales, ["fr", "de-CH"])
        XCTAssertEqual(c.callouts.custom, ["e": ["é", "è"], "$": ["€", "£"], "o": []])

        XCTAssertEqual(c.output.layout, "de")
        XCTAssertEqual(c.output.variant, "nodeadkeys")
        XCTAssertEqual(c.output.options, "compose:ralt")
        XCTAssertEqual(c.output.unicodeMethod, .ctrlShiftU)
        XCTAssertEqual(c.output.composeKey, .rightAlt)
        XCTAssertEqual(c.output.paceMicroseconds, 250)

        let alphabetic = try XCTUnwrap(c.bindings.layers[.alphabetic])
        XCTAssertEqual(alphabetic[.capsLock], KeyBinding(press: .escape))
        XCTAssertEqual(alphabetic[.rightMeta], KeyBinding([.press: .keyboardType(.symbolic), .release: .keyboardType(.alphabetic)]))
        XCTAssertEqual(alphabetic[KeyCode(name: "f13")!], KeyBinding(press: .text("hello")))
        XCTAssertEqual(alphabetic[.a], KeyBinding([.press: .character("a"), .longPress: .custom(named: "menu"),
                                                   .doubleTap: .key(KeyCode(name: "f13")!), .repeatPress: KeyboardAction.none]))
        XCTAssertEqual(alphabetic[.rightCtrl], KeyBinding(press: .keyboardType(.custom(named: "nav"))))
        XCTAssertEqual(alphabetic[KeyCode(name: "f14")!], KeyBinding(press: .primary(.done)))
        XCTAssertEqual(alphabetic.count, 6)
        XCTAssertEqual(c.bindings.layers[.symbolic], [.j: KeyBinding(press: .character("("))])
        XCTAssertEqual(c.bindings.layers[.custom(named: "nav")], [.h: KeyBinding(press: .moveCursorBackward),
                                                                   .l: KeyBinding(press: .moveCursorForward)])
        XCTAssertEqual(c.bindings.layers.count, 3)
        XCTAssertEqual(c.bindings.binding(for: .capsLock, in: .symbolic), KeyBinding(press: .escape))

        XCTAssertFalse(c.feedback.isAudioEnabled)
        XCTAssertTrue(c.feedback.isHapticEnabled)
        XCTAssertEqual(c.feedback.audioVolume, 1)
        XCTAssertEqual(c.feedback.audioDevice, "hw:1,0")
        XCTAssertEqual(c.feedback.hapticDevice, "*Joy-Con*")
        XCTAssertEqual(c.feedback.overrides, [
            .init(action: .backspace, gesture: .longPress, audio: .custom(path: "/usr/share/sounds/erase.wav"), haptic: HapticFeedback.none),
            .init(action: nil, gesture: .doubleTap, audio: nil, haptic: .heavyImpact),
        ])

        // The same values, built by hand, as one struct.
        var expected = KeyholdConfiguration()
        expected.devices = c.devices
        expected.gestures = GestureSettings(longPressDelay: 350, repeatDelay: 400, repeatInterval: 30, doubleTapInterval: 250)
        expected.callouts.enabled = false
        expected.callouts.locales = ["fr", "de-CH"]
        expected.callouts.custom = ["e": ["é", "è"], "$": ["€", "£"], "o": []]
        expected.output.layout = "de"; expected.output.variant = "nodeadkeys"; expected.output.options = "compose:ralt"
        expected.output.unicodeMethod = .ctrlShiftU; expected.output.composeKey = .rightAlt; expected.output.paceMicroseconds = 250
        expected.bindings = c.bindings
        expected.feedback = c.feedback
        XCTAssertEqual(c, expected)
        XCTAssertNotEqual(c, KeyholdConfiguration())
    }

    func testEmptyStringsForLayoutMeanNoneAndIntegerVolumeIsANumber() throws {
        let c = try ConfigurationLoader.load(text: "[output]\nlayout = \"\"\nvariant = \"\"\n[feedback]\nvolume = 0\n", file: "x")
        XCTAssertNil(c.output.layout)
        XCTAssertNil(c.output.variant)
        XCTAssertEqual(c.feedback.audioVolume, 0)
    }

    // MARK: - Errors: unknown keys

    func testUnknownKeySuggestsTheNearestKey() {
        assertError("""
            [gestures]
            long_pres_ms = 400
            """, line: 2, key: "gestures.long_pres_ms", message: "unknown key", suggestion: "did you mean 'long_press_ms'?",
            description: "/etc/keyhold/config.toml:2: gestures.long_pres_ms: unknown key (did you mean 'long_press_ms'?)")
    }

    func testUnknownKeyInEveryTable() {
        assertError("# x\n\n[gesture]\nlong_press_ms = 1\n", line: 3, key: "gesture", suggestion: "did you mean 'gestures'?",
                    description: "/etc/keyhold/config.toml:3: gesture: unknown key (did you mean 'gestures'?)")
        assertError("[devices]\nincluded = []\n", line: 2, key: "devices.included", suggestion: "did you mean 'include'?",
                    description: "/etc/keyhold/config.toml:2: devices.included: unknown key (did you mean 'include'?)")
        assertError("[callouts]\nenable = true\n", line: 2, key: "callouts.enable", suggestion: "did you mean 'enabled'?",
                    description: "/etc/keyhold/config.toml:2: callouts.enable: unknown key (did you mean 'enabled'?)")
        assertError("[output]\nunicode = \"compose\"\n", line: 2, key: "output.unicode", suggestion: "did you mean 'unicode_method'?",
                    description: "/etc/keyhold/config.toml:2: output.unicode: unknown key (did you mean 'unicode_method'?)")
        assertError("[output]\nfoo = 1\n", line: 2, key: "output.foo", suggestion: nil,
                    description: "/etc/keyhold/config.toml:2: output.foo: unknown key")
        assertError("[feedback]\nvolumes = 0.2\n", line: 2, key: "feedback.volumes", suggestion: "did you mean 'volume'?",
                    description: "/etc/keyhold/config.toml:2: feedback.volumes: unknown key (did you mean 'volume'?)")
        assertError("""
            [[feedback.override]]
            gesture = "press"
            audio = "none"

            [[feedback.override]]
            gesture = "press"
            haptics = "none"
            """, line: 7, key: "feedback.override[1].haptics", suggestion: "did you mean 'haptic'?",
            description: "/etc/keyhold/config.toml:7: feedback.override[1].haptics: unknown key (did you mean 'haptic'?)")
    }

    func testKeyInTheWrongTableSuggestsWhereItBelongs() {
        assertError("[output]\nvolume = 0.3\n", line: 2, key: "output.volume", suggestion: "did you mean 'feedback.volume'?",
                    description: "/etc/keyhold/config.toml:2: output.volume: unknown key (did you mean 'feedback.volume'?)")
    }

    func testDottedAndInlineKeysAreLocated() {
        assertError("gestures.long_press_ms = 300\ngestures.double_tapms = 100\n", line: 2, key: "gestures.double_tapms",
                    suggestion: "did you mean 'double_tap_ms'?",
                    description: "/etc/keyhold/config.toml:2: gestures.double_tapms: unknown key (did you mean 'double_tap_ms'?)")
        assertError("feedback = { audio = true, haptic = true }\n\noutput = { pace = 1 }\n", line: 3, key: "output.pace",
                    suggestion: "did you mean 'pace_us'?",
                    description: "/etc/keyhold/config.toml:3: output.pace: unknown key (did you mean 'pace_us'?)")
    }

    // MARK: - Errors: types and ranges

    func testWrongTypes() {
        assertError("[gestures]\nlong_press_ms = \"500\"\n", line: 2, key: "gestures.long_press_ms",
                    message: "expected an integer (ms), found a string",
                    description: "/etc/keyhold/config.toml:2: gestures.long_press_ms: expected an integer (ms), found a string")
        assertError("[callouts]\nenabled = 1\n", line: 2, key: "callouts.enabled", message: "expected true or false, found an integer",
                    description: "/etc/keyhold/config.toml:2: callouts.enabled: expected true or false, found an integer")
        assertError("[devices]\ninclude = \"*Keychron*\"\n", line: 2, key: "devices.include",
                    description: "/etc/keyhold/config.toml:2: devices.include: expected an array of strings, found a string")
        assertError("[devices]\nexclude = [\n  \"a\",\n  3,\n]\n", line: 4, key: "devices.exclude[1]",
                    description: "/etc/keyhold/config.toml:4: devices.exclude[1]: expected a string, found an integer")
        assertError("gestures = 3\n", line: 1, key: "gestures",
                    description: "/etc/keyhold/config.toml:1: gestures: expected a table ([gestures]), found an integer")
        assertError("[feedback.override]\ngesture = \"press\"\n", line: 1, key: "feedback.override",
                    description: "/etc/keyhold/config.toml:1: feedback.override: expected an array of tables ([[feedback.override]]), found a table")
        assertError("[bindings]\na = 1\n", line: 2, key: "bindings.a",
                    description: "/etc/keyhold/config.toml:2: bindings.a: expected an action string or a table of gestures, found an integer")
    }

    func testOutOfRangeValues() {
        assertError("[gestures]\nrepeat_interval_ms = -5\n", line: 2, key: "gestures.repeat_interval_ms",
                    message: "-5 is out of range (1 to 10000 ms)",
                    description: "/etc/keyhold/config.toml:2: gestures.repeat_interval_ms: -5 is out of range (1 to 10000 ms)")
        assertError("[gestures]\nlong_press_ms = 0\n", line: 2, key: "gestures.long_press_ms",
                    description: "/etc/keyhold/config.toml:2: gestures.long_press_ms: 0 is out of range (1 to 10000 ms)")
        assertError("[feedback]\naudio = true\nvolume = 1.5\n", line: 3, key: "feedback.volume",
                    description: "/etc/keyhold/config.toml:3: feedback.volume: 1.5 is out of range (0 to 1)")
        assertError("[feedback]\nvolume = -1\n", line: 2, key: "feedback.volume",
                    description: "/etc/keyhold/config.toml:2: feedback.volume: -1 is out of range (0 to 1)")
        assertError("[output]\npace_us = -1\n", line: 2, key: "output.pace_us",
                    description: "/etc/keyhold/config.toml:2: output.pace_us: -1 is out of range (0 to 50000 µs)")
        assertError("[feedback]\naudio_device = \"\"\n", line: 2, key: "feedback.audio_device", suggestion: "did you mean 'default'?",
                    description: "/etc/keyhold/config.toml:2: feedback.audio_device: empty ALSA device name (did you mean 'default'?)")
    }

    // MARK: - Errors: bindings

    func testUnknownKeyNameInBindingsSuggestsAnEvdevName() {
        assertError("""
            [bindings]
            capslock = "escape"
            capslok = "escape"
            """, line: 3, key: "bindings.capslok", message: "unknown key name 'capslok'", suggestion: "did you mean 'capslock'?",
            description: "/etc/keyhold/config.toml:3: bindings.capslok: unknown key name 'capslok' (did you mean 'capslock'?)")
        assertError("[layers.symbolic]\nKEY_LEFTSHFT = \"none\"\n", line: 2, key: "layers.symbolic.KEY_LEFTSHFT",
                    suggestion: "did you mean 'leftshift'?",
                    description: "/etc/keyhold/config.toml:2: layers.symbolic.KEY_LEFTSHFT: unknown key name 'KEY_LEFTSHFT' (did you mean 'leftshift'?)")
    }

    func testSameKeyTwiceIsAnError() {
        assertError("[bindings]\nesc = \"none\"\nESCAPE = \"none\"\n", line: 3, key: "bindings.ESCAPE",
                    description: "/etc/keyhold/config.toml:3: bindings.ESCAPE: 'ESCAPE' is the same key as 'esc', which is already bound")
    }

    func testBadActionsSuggestTheNearestAction() {
        assertError("[bindings]\ncapslock = \"escap\"\n", line: 2, key: "bindings.capslock", message: "unknown action 'escap'",
                    suggestion: "did you mean 'escape'?",
                    description: "/etc/keyhold/config.toml:2: bindings.capslock: unknown action 'escap' (did you mean 'escape'?)")
        assertError("[bindings]\ncapslock = \"capslock\"\n", line: 2, key: "bindings.capslock", suggestion: "did you mean 'capsLock'?",
                    description: "/etc/keyhold/config.toml:2: bindings.capslock: unknown action 'capslock' (did you mean 'capsLock'?)")
        assertError("[bindings]\ne = \"charcter:é\"\n", line: 2, key: "bindings.e", suggestion: "did you mean 'character:é'?",
                    description: "/etc/keyhold/config.toml:2: bindings.e: unknown action 'charcter:é' (did you mean 'character:é'?)")
        assertError("[bindings]\ne = \"character:ab\"\n", line: 2, key: "bindings.e", suggestion: "did you mean 'text:ab'?",
                    description: "/etc/keyhold/config.toml:2: bindings.e: 'character:' takes one character, not 2 (did you mean 'text:ab'?)")
        assertError("[bindings]\ne = \"text:\"\n", line: 2, key: "bindings.e", suggestion: nil,
                    description: "/etc/keyhold/config.toml:2: bindings.e: action 'text:' needs a value after the colon")
        assertError("[bindings]\ne = \"key:f133\"\n", line: 2, key: "bindings.e", suggestion: "did you mean 'key:f13'?",
                    description: "/etc/keyhold/config.toml:2: bindings.e: unknown key name 'f133' in action 'key:f133' (did you mean 'key:f13'?)")
        assertError("[bindings]\nenter = \"primary:sent\"\n", line: 2, key: "bindings.enter", suggestion: "did you mean 'primary:send'?",
                    description: "/etc/keyhold/config.toml:2: bindings.enter: unknown primary key type 'sent' (did you mean 'primary:send'?)")
        assertError("[bindings]\nf1 = \"f13\"\n", line: 2, key: "bindings.f1", suggestion: "did you mean 'key:f13'?",
                    description: "/etc/keyhold/config.toml:2: bindings.f1: unknown action 'f13' (did you mean 'key:f13'?)")
    }

    func testBadActionInsideAGestureTable() {
        assertError("""
            [bindings]
            b = "none"
            a = { press = "character:a", long_press = "backspac" }
            """, line: 3, key: "bindings.a.long_press", suggestion: "did you mean 'backspace'?",
            description: "/etc/keyhold/config.toml:3: bindings.a.long_press: unknown action 'backspac' (did you mean 'backspace'?)")
    }

    func testUnknownGestures() {
        assertError("[bindings]\na = { press = \"none\", long_pres = \"none\" }\n", line: 2, key: "bindings.a.long_pres",
                    suggestion: "did you mean 'long_press'?",
                    description: "/etc/keyhold/config.toml:2: bindings.a.long_pres: unknown gesture 'long_pres' (one of press, release, long_press, repeat_press, double_tap, or tap and hold) (did you mean 'long_press'?)")
        assertError("[[feedback.override]]\ngesture = \"doubletap\"\nhaptic = \"none\"\n", line: 2, key: "feedback.override[0].gesture",
                    suggestion: "did you mean 'double_tap'?",
                    description: "/etc/keyhold/config.toml:2: feedback.override[0].gesture: unknown gesture 'doubletap' (one of press, release, long_press, repeat_press, double_tap) (did you mean 'double_tap'?)")
        assertError("[bindings]\na = {}\n", line: 2, key: "bindings.a",
                    description: "/etc/keyhold/config.toml:2: bindings.a: binds no gesture (use press, release, long_press, repeat_press or double_tap)")
    }

    func testLayerReferencesAndTheAlphabeticLayer() {
        assertError("[bindings]\nrightalt = \"keyboardType:symbolc\"\n", line: 2, key: "bindings.rightalt",
                    suggestion: "did you mean 'keyboardType:symbolic'?",
                    description: "/etc/keyhold/config.toml:2: bindings.rightalt: no layer 'symbolc' (define [layers.symbolc] or use alphabetic, numeric, symbolic, emojis) (did you mean 'keyboardType:symbolic'?)")
        assertError("[layers.alphabetic]\na = \"none\"\n", line: 1, key: "layers.alphabetic",
                    description: "/etc/keyhold/config.toml:1: layers.alphabetic: the alphabetic layer is [bindings]")
    }

    // MARK: - Errors: other values

    func testUnknownUnicodeMethod() {
        assertError("[output]\nunicode_method = \"ctrl-shift\"\n", line: 2, key: "output.unicode_method",
                    suggestion: "did you mean 'ctrl-shift-u'?",
                    description: "/etc/keyhold/config.toml:2: output.unicode_method: unknown unicode method 'ctrl-shift' (one of auto, console, ctrl-shift-u, compose, session) (did you mean 'ctrl-shift-u'?)")
        assertError("[output]\ncompose_key = \"rightmta\"\n", line: 2, key: "output.compose_key", suggestion: "did you mean 'rightmeta'?",
                    description: "/etc/keyhold/config.toml:2: output.compose_key: unknown key name 'rightmta' (did you mean 'rightmeta'?)")
    }

    func testUnknownCalloutOrder() {
        assertError("[callouts]\norder = \"frequently\"\n", line: 2, key: "callouts.order", suggestion: "did you mean 'frequent'?",
                    description: "/etc/keyhold/config.toml:2: callouts.order: unknown callout order 'frequently' (one of locale, frequent) (did you mean 'frequent'?)")
        XCTAssertEqual(try ConfigurationLoader.load(text: "[callouts]\norder = \"frequent\"\n", file: Self.file).callouts.order, .frequent)
    }

    func testBadDevicePatterns() {
        assertError("[devices]\ninclude = [\"*Keychron*\", \"46d:c52b\"]\n", line: 2, key: "devices.include[1]",
                    suggestion: "did you mean '046d:c52b'?",
                    description: "/etc/keyhold/config.toml:2: devices.include[1]: bad device id '46d:c52b': vendor:product needs four hex digits each, as '046d:c52b' (did you mean '046d:c52b'?)")
        assertError("[devices]\nexclude = [\"046d:c5zz\"]\n", line: 2, key: "devices.exclude[0]", suggestion: nil,
                    description: "/etc/keyhold/config.toml:2: devices.exclude[0]: bad device id '046d:c5zz': vendor:product needs four hex digits each, as '046d:c52b'")
        assertError("[devices]\nexclude = [\"\"]\n", line: 2, key: "devices.exclude[0]",
                    description: "/etc/keyhold/config.toml:2: devices.exclude[0]: empty device pattern")
        assertError("[devices]\ninclude = [\"phys:\"]\n", line: 2, key: "devices.include[0]",
                    description: "/etc/keyhold/config.toml:2: devices.include[0]: 'phys:' needs a glob of the physical path after it")
    }

    func testCalloutErrors() {
        assertError("[callouts]\ntimeout_ms = 700000\n", line: 2, key: "callouts.timeout_ms",
                    description: "/etc/keyhold/config.toml:2: callouts.timeout_ms: 700000 is out of range (0 to 600000 ms)")
        assertError("[callouts.custom]\ne = [\"é\"]\nae = [\"æ\"]\n", line: 3, key: "callouts.custom.ae",
                    description: "/etc/keyhold/config.toml:3: callouts.custom.ae: a callout key is one character, not 2")
        assertError("[callouts.custom]\n\"E\" = [\"É\"]\n", line: 2, key: "callouts.custom.E", suggestion: "did you mean 'e'?",
                    description: "/etc/keyhold/config.toml:2: callouts.custom.E: callouts are set on the lower-case letter; upper case follows (did you mean 'e'?)")
        assertError("[callouts.custom]\ne = [\"é\", \"\"]\n", line: 2, key: "callouts.custom.e[1]",
                    description: "/etc/keyhold/config.toml:2: callouts.custom.e[1]: empty callout candidate")
        assertError("[callouts.custom]\ne = \"é\"\n", line: 2, key: "callouts.custom.e",
                    description: "/etc/keyhold/config.toml:2: callouts.custom.e: expected an array of strings, found a string")
        assertError("[callouts]\nlocales = [\"en\", \"frr\"]\n", line: 2, key: "callouts.locales[1]", suggestion: "did you mean 'fr'?",
                    description: "/etc/keyhold/config.toml:2: callouts.locales[1]: unknown callout locale 'frr' (define it under [callouts.locale.frr]) (did you mean 'fr'?)")
        assertError("[callouts]\nlocales = [\"mine\"]\n[callouts.locale.mien]\ne = [\"ə\"]\n", line: 2, key: "callouts.locales[0]",
                    suggestion: "did you mean 'mien'?",
                    description: "/etc/keyhold/config.toml:2: callouts.locales[0]: unknown callout locale 'mine' (define it under [callouts.locale.mine]) (did you mean 'mien'?)")
        assertError("[callouts.locale.mine]\nbsae = \"fr\"\n", line: 2, key: "callouts.locale.mine.bsae", suggestion: "did you mean 'base'?",
                    description: "/etc/keyhold/config.toml:2: callouts.locale.mine.bsae: a callout key is one character, not 4 (did you mean 'base'?)")
        assertError("[callouts.locale.mine]\nbase = \"frr\"\n", line: 2, key: "callouts.locale.mine.base", suggestion: "did you mean 'fr'?",
                    description: "/etc/keyhold/config.toml:2: callouts.locale.mine.base: unknown callout locale 'frr' (did you mean 'fr'?)")
        assertError("[callouts.locale]\nmine = 3\n", line: 2, key: "callouts.locale.mine",
                    description: "/etc/keyhold/config.toml:2: callouts.locale.mine: expected a table ([callouts.locale.mine]), found an integer")
        assertError("[callouts]\nlocales = []\n", line: 2, key: "callouts.locales",
                    description: "/etc/keyhold/config.toml:2: callouts.locales: needs at least one locale (the first is active)")
    }

    func testFeedbackOverrideErrors() {
        assertError("[[feedback.override]]\naction = \"backspace\"\nhaptic = \"none\"\n", line: 1, key: "feedback.override[0]",
                    description: "/etc/keyhold/config.toml:1: feedback.override[0]: missing key 'gesture' (press, release, long_press, repeat_press or double_tap)")
        assertError("[[feedback.override]]\ngesture = \"press\"\naudio = \"clik\"\n", line: 3, key: "feedback.override[0].audio",
                    suggestion: nil,
                    description: "/etc/keyhold/config.toml:3: feedback.override[0].audio: unknown audio feedback 'clik' (input, delete, system, none or a file path)")
        assertError("[[feedback.override]]\ngesture = \"press\"\nhaptic = \"lightimpact\"\n", line: 3, key: "feedback.override[0].haptic",
                    suggestion: "did you mean 'lightImpact'?",
                    description: "/etc/keyhold/config.toml:3: feedback.override[0].haptic: unknown haptic feedback 'lightimpact' (did you mean 'lightImpact'?)")
        assertError("[[feedback.override]]\ngesture = \"press\"\n", line: 1, key: "feedback.override[0]",
                    description: "/etc/keyhold/config.toml:1: feedback.override[0]: an override needs 'audio' or 'haptic'")
        assertError("[[feedback.override]]\naction = \"backspase\"\ngesture = \"press\"\naudio = \"none\"\n", line: 2,
                    key: "feedback.override[0].action", suggestion: "did you mean 'backspace'?",
                    description: "/etc/keyhold/config.toml:2: feedback.override[0].action: unknown action 'backspase' (did you mean 'backspace'?)")
    }

    // MARK: - Errors: syntax and files

    func testSyntaxErrorReportsLineAndColumn() throws {
        let text = "[gestures]\nlong_press_ms = 500\nrepeat_delay_ms 600\n"
        let error = try XCTUnwrap(loadError(text))
        XCTAssertEqual(error.line, 3)
        XCTAssertEqual(error.column, 17)
        XCTAssertNil(error.key)
        XCTAssertNil(error.suggestion)
        XCTAssertTrue(error.message.hasPrefix("syntax error: "), error.message)
        XCTAssertTrue(error.description.hasPrefix("/etc/keyhold/config.toml:3:17: syntax error: "), error.description)
        print("example:", error)

        let unterminated = try XCTUnwrap(loadError("[output]\nlayout = \"de\n"))
        XCTAssertEqual(unterminated.line, 2)
        XCTAssertNotNil(unterminated.column)
        let duplicate = try XCTUnwrap(loadError("[feedback]\naudio = true\n\n[feedback]\nhaptic = true\n"))
        XCTAssertEqual(duplicate.line, 4)
        let nul = try XCTUnwrap(loadError("[output]\nlayout = \"d\0e\"\n"))
        XCTAssertEqual(nul.line, 2)
        XCTAssertEqual(nul.column, 12)
    }

    /// `{ tap = "...", hold = "..." }`: both actions, nothing else beside them.
    func testDualRoleBindings() throws {
        let c = try ConfigurationLoader.load(text: "[bindings]\ncapslock = { tap = \"escape\", hold = \"control\" }\n", file: "c.toml")
        XCTAssertEqual(c.bindings.binding(for: .capsLock, in: .alphabetic), KeyBinding(tap: .escape, hold: .control))
        let layer = try ConfigurationLoader.load(
            text: "[bindings]\nspace = { tap = \"space\", hold = \"keyboardType:nav\" }\n[layers.nav]\nj = \"text:(\"\n", file: "c.toml")
        XCTAssertEqual(layer.bindings.binding(for: .space, in: .alphabetic)?.dualRole?.hold, .keyboardType(KeyboardType(name: "nav")))
        XCTAssertEqual(loadError("[bindings]\ncapslock = { tap = \"escape\" }\n")?.description,
                       "\(Self.file):2: bindings.capslock: a dual-role key needs both tap and hold (missing 'hold')")
        XCTAssertEqual(loadError("[bindings]\ncapslock = { tap = \"escape\", hold = \"control\", press = \"a\" }\n")?.description,
                       "\(Self.file):2: bindings.capslock.press: a dual-role key takes tap and hold only, not 'press'")
        XCTAssertEqual(loadError("[bindings]\ncapslock = { tap = \"escpe\", hold = \"control\" }\n")?.description,
                       "\(Self.file):2: bindings.capslock.tap: unknown action 'escpe' (did you mean 'escape'?)")
        XCTAssertEqual(loadError("[bindings]\nx = { tap = \"space\", hold = \"keyboardType:nope\" }\n")?.key, "bindings.x.hold")
    }

    func testErrorsComeInFileOrderAndValidateListsThemAll() {
        let text = """
            [gestures]
            long_press_ms = -1

            [devices]
            include = ["12:34"]

            [bindings]
            capslok = "escape"
            """
        let errors = ConfigurationLoader.validate(text: text, file: "c.toml")
        XCTAssertEqual(errors.map(\.line), [2, 5, 8])
        XCTAssertEqual(errors.map(\.key), ["gestures.long_press_ms", "devices.include[0]", "bindings.capslok"])
        XCTAssertEqual(loadError(text)?.key, "gestures.long_press_ms")
        XCTAssertEqual(ConfigurationLoader.validate(text: Self.full, file: "full.toml"), [])
        // Errors come in the order the keys are written.
        let twoInOneTable = ConfigurationLoader.validate(text: "[output]\nzz = 1\naa = 2\n", file: "c.toml")
        XCTAssertEqual(twoInOneTable.map(\.key), ["output.zz", "output.aa"])
    }

    /// The whole message a user reads, for the three mistakes users make most.
    func testErrorMessagesAsPrinted() {
        let f = Self.file
        XCTAssertEqual(loadError("[gestures]\nlong_pres_ms = 400\n")?.description,
                       "\(f):2: gestures.long_pres_ms: unknown key (did you mean 'long_press_ms'?)")
        XCTAssertEqual(loadError("[bindings]\ncapslok = \"escape\"\n")?.description,
                       "\(f):2: bindings.capslok: unknown key name 'capslok' (did you mean 'capslock'?)")
        XCTAssertEqual(loadError("[bindings]\ncapslock = \"escap\"\n")?.description,
                       "\(f):2: bindings.capslock: unknown action 'escap' (did you mean 'escape'?)")
    }

    // MARK: - Where keys are written

    func testLocatorTablesAndKeys() throws {
        let text = """
            # comment with key = 1 and [fake]
            top = 1
            [a]
            x = 1   # trailing = comment
              y=2
            [a.b]
            z = "has # and = and [x] inside"
            [ c . "d.e" ]
            'lit key' = 3
            "quoted\\"key" = 4
            """
        let l = try TOMLDocument(text: text)
        XCTAssertEqual(l.line(of: "top"), 2)
        XCTAssertEqual(l.line(of: "a"), 3)
        XCTAssertEqual(l.line(of: "a.x"), 4)
        XCTAssertEqual(l.line(of: "a.y"), 5)
        XCTAssertEqual(l.position(of: [.key("a"), .key("y")]), .init(line: 5, column: 3))
        XCTAssertEqual(l.line(of: "a.b"), 6)
        XCTAssertEqual(l.line(of: "a.b.z"), 7)
        XCTAssertEqual(l.line(of: [.key("c"), .key("d.e")]), 8)
        XCTAssertEqual(l.line(of: "c.\"d.e\""), 8)
        XCTAssertEqual(l.line(of: [.key("c"), .key("d.e"), .key("lit key")]), 9)
        XCTAssertEqual(l.line(of: [.key("c"), .key("d.e"), .key("quoted\"key")]), 10)
        XCTAssertNil(l.line(of: "fake"))
        XCTAssertNil(l.line(of: "key"))
        XCTAssertNil(l.line(of: "a.z"))
    }

    func testLocatorDottedKeysAndInlineTables() throws {
        let text = """
            gestures.long_press_ms = 1
            site."google.com".ok = true
            point = { x = 1, y = { deep = 2 } }
            multi = { a = 1, b = [
              2 ] }
            list = [
              1,
              # a comment, with [brackets] and "quotes"
              { k = "v" },
              [ 2, 3 ],
            ]
            """
        let l = try TOMLDocument(text: text)
        XCTAssertEqual(l.line(of: "gestures"), 1)
        XCTAssertEqual(l.line(of: "gestures.long_press_ms"), 1)
        XCTAssertEqual(l.line(of: [.key("site"), .key("google.com"), .key("ok")]), 2)
        XCTAssertEqual(l.line(of: "point.y.deep"), 3)
        XCTAssertEqual(l.position(of: [.key("point"), .key("y"), .key("deep")])?.column, 24)
        XCTAssertEqual(l.line(of: "multi.b"), 4)
        XCTAssertEqual(l.line(of: "multi.b[0]"), 5)
        XCTAssertEqual(l.line(of: "list[0]"), 7)
        XCTAssertEqual(l.line(of: "list[1]"), 9)
        XCTAssertEqual(l.line(of: "list[1].k"), 9)
        XCTAssertEqual(l.line(of: "list[2][1]"), 10)
        XCTAssertNil(l.line(of: "list[3]"))
    }

    func testLocatorArrayTables() throws {
        let text = """
            [[fruit]]
            name = "apple"
            [fruit.physical]
            color = "red"
            [[fruit.variety]]
            name = "red delicious"

            [[fruit]]
            name = "banana"
            [[fruit.variety]]
            name = "plantain"
            """
        let l = try TOMLDocument(text: text)
        XCTAssertEqual(l.line(of: "fruit"), 1)
        XCTAssertEqual(l.line(of: "fruit[0]"), 1)
        XCTAssertEqual(l.line(of: "fruit[0].name"), 2)
        XCTAssertEqual(l.line(of: "fruit[0].physical.color"), 4)
        XCTAssertEqual(l.line(of: "fruit[0].variety[0].name"), 6)
        XCTAssertEqual(l.line(of: "fruit[1]"), 8)
        XCTAssertEqual(l.line(of: "fruit[1].name"), 9)
        XCTAssertEqual(l.line(of: "fruit[1].variety[0].name"), 11)
        XCTAssertNil(l.line(of: "fruit[1].variety[1]"))
    }

    func testLocatorSkipsMultiLineStrings() throws {
        let text = #"""
            a = """
            fake = 1
            [fake]
            \""" still inside
            """
            b = '''
            [[also_fake]]
            '''
            c = """x""""
            d = "\\" # not a comment"
            e = 1
            """#
        let l = try TOMLDocument(text: text)
        XCTAssertEqual(l.line(of: "a"), 1)
        XCTAssertNil(l.line(of: "fake"))
        XCTAssertEqual(l.line(of: "b"), 6)
        XCTAssertNil(l.line(of: "also_fake"))
        XCTAssertEqual(l.line(of: "c"), 9)
        XCTAssertEqual(l.line(of: "d"), 10)
        XCTAssertEqual(l.line(of: "e"), 11)
    }

    func testPathText() {
        XCTAssertEqual(TOMLPath.string([.key("feedback"), .key("override"), .index(1), .key("audio")]), "feedback.override[1].audio")
        XCTAssertEqual(TOMLPath.string([.key("callouts"), .key("custom"), .key("$")]), "callouts.custom.\"$\"")
        XCTAssertEqual(TOMLPath.parse("callouts.custom.\"$\""), [.key("callouts"), .key("custom"), .key("$")])
        XCTAssertEqual(TOMLPath.parse("a[2][0].b"), [.key("a"), .index(2), .index(0), .key("b")])
        XCTAssertNil(TOMLPath.parse("a..b"))
        XCTAssertNil(TOMLPath.parse("a[x]"))
    }

    func testSpelling() {
        XCTAssertEqual(Spelling.distance("long_pres_ms", "long_press_ms"), 1)
        XCTAssertEqual(Spelling.distance("ab", "ba"), 1)
        XCTAssertEqual(Spelling.nearest(to: "gesture", in: ["devices", "gestures"]), "gestures")
        XCTAssertNil(Spelling.nearest(to: "zzzzzz", in: ["devices", "gestures"]))
        XCTAssertEqual(Spelling.nearest(to: "pace", in: ["layout", "pace_us"]), "pace_us")
        XCTAssertNil(Spelling.nearest(to: "re", in: ["repeat_delay_ms", "repeat_interval_ms"]))
    }
}
