import KeyholdKit
import XCTest

/// A user's personal file (`~/.config/keyhold/config.toml`) laid over the system's configuration:
/// key by key, only the sections users may set, every error naming the personal file.
final class PersonalSettingsTests: XCTestCase {
    static let personal = "/home/ana/.config/keyhold/config.toml"

    private func system(_ text: String) throws -> KeyholdConfiguration {
        try ConfigurationLoader.load(text: text, file: ConfigurationLoader.systemPath)
    }

    private func layered(_ text: String, over system: KeyholdConfiguration) throws -> KeyholdConfiguration {
        try ConfigurationLoader.load(personal: text, file: Self.personal, over: system)
    }

    /// What the personal file names replaces the system's, key by key; the rest stays the system's.
    func testKeyByKey() throws {
        let base = try system("""
            [devices]
            include = ["*Keychron*"]
            [gestures]
            long_press_ms = 400
            double_tap_ms = 250
            [callouts]
            locales = ["de"]
            [callouts.custom]
            e = ["€"]
            a = ["@"]
            [bindings]
            capslock = { tap = "escape", hold = "control" }
            f1 = "text:hello"
            [apps."xterm"]
            callouts = false
            [apps."foot"]
            callouts = false
            [feedback]
            volume = 0.3
            audio_device = "hw:1"
            """)
        let mine = try layered("""
            [gestures]
            long_press_ms = 800
            [callouts]
            locales = ["pl", "de"]
            order = "frequent"
            [callouts.custom]
            e = ["ę"]
            [bindings]
            f1 = "text:cześć"
            f2 = "search"
            [apps."foot"]
            callouts = true
            [feedback]
            audio = false
            """, over: base)
        XCTAssertEqual(mine.gestures.longPressDelay, 800)
        XCTAssertEqual(mine.gestures.doubleTapInterval, 250, "the system's, not the default's")
        XCTAssertEqual(mine.callouts.locales, ["pl", "de"])
        XCTAssertEqual(mine.callouts.order, .frequent)
        XCTAssertEqual(mine.callouts.custom, ["e": ["ę"], "a": ["@"]])
        let bindings = try XCTUnwrap(mine.bindings.layers[.alphabetic])
        XCTAssertEqual(bindings[.f1], KeyBinding(press: .text("cześć")))
        XCTAssertEqual(bindings[KeyCode(name: "f2")!], KeyBinding(press: .search))
        XCTAssertEqual(bindings[.capsLock], base.bindings.layers[.alphabetic]?[.capsLock], "the system's binding stays")
        XCTAssertEqual(mine.apps.map(\.pattern), ["foot", "xterm"], "the user's rules first")
        XCTAssertEqual(mine.apps.first?.callouts, true)
        XCTAssertFalse(mine.feedback.isAudioEnabled)
        XCTAssertEqual(mine.feedback.audioVolume, 0.3)
        XCTAssertEqual(mine.feedback.audioDevice, "hw:1")
        XCTAssertEqual(mine.devices, base.devices)
        XCTAssertEqual(try layered("", over: base), base, "an empty file changes nothing")
    }

    /// Devices, output and [users] are the machine's; what [users] allow leaves out is pinned;
    /// the daemon's devices and sound files are the system's; errors name the personal file.
    func testWhatAUserMayNotSet() throws {
        let base = try system("[users]\nallow = [\"callouts\", \"bindings\"]\n")
        XCTAssertEqual(base.users.allow, ["callouts", "bindings"])
        let cases: [(String, String)] = [
            ("[devices]\ninclude = [\"*\"]\n", "\(Self.personal):1: devices: [devices] is the machine's: it is set in the system file (/etc/keyhold/config.toml), not a user's"),
            ("[output]\nlayout = \"de\"\n", "\(Self.personal):1: output: [output] is the machine's: it is set in the system file (/etc/keyhold/config.toml), not a user's"),
            ("[users]\nallow = []\n", "\(Self.personal):1: users: [users] is the machine's: it is set in the system file (/etc/keyhold/config.toml), not a user's"),
            ("\n[gestures]\nlong_press_ms = 900\n", "\(Self.personal):2: gestures: [gestures] is not yours to change here: the system file's [users] allow leaves it out"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try layered(text, over: base)) { XCTAssertEqual("\($0)", message) }
        }
        let everything = try system("")
        XCTAssertThrowsError(try layered("[feedback]\naudio_device = \"hw:0\"\n", over: everything)) {
            XCTAssertEqual("\($0)", "\(Self.personal):2: feedback.audio_device: the daemon's devices are set in the system file (/etc/keyhold/config.toml), not a user's")
        }
        XCTAssertThrowsError(try layered("[[feedback.override]]\ngesture = \"press\"\naudio = \"/etc/shadow\"\n", over: everything)) {
            XCTAssertEqual("\($0)", "\(Self.personal):3: feedback.override[0].audio: a user's sounds are input, delete, system or none: the daemon reads no file of a user's")
        }
        XCTAssertThrowsError(try layered("[gestures]\nlong_pres_ms = 900\n", over: everything)) {
            XCTAssertEqual("\($0)", "\(Self.personal):2: gestures.long_pres_ms: unknown key (did you mean 'long_press_ms'?)")
        }
        XCTAssertThrowsError(try system("[users]\nallow = [\"devices\", \"gesture\"]\n")) {
            XCTAssertTrue("\($0)".hasSuffix("users.allow[0]: 'devices' is no section a user may set (gestures, callouts, bindings, layers, apps, feedback)"), "\($0)")
        }
    }

    /// A personal file may name the system's layers and callout locales.
    func testTheSystemsLayersAndLocalesAreKnown() throws {
        let base = try system("""
            [callouts.locale.fr-linguist]
            base = "fr"
            e = ["ə"]
            [layers.nav]
            h = "key:left"
            """)
        let mine = try layered("[callouts]\nlocales = [\"fr-linguist\"]\n[bindings]\nrightctrl = \"keyboardType:nav\"\n", over: base)
        XCTAssertEqual(mine.callouts.locales, ["fr-linguist"])
        XCTAssertEqual(mine.bindings.layers[.alphabetic]?[.rightCtrl], KeyBinding(press: .keyboardType(.custom(named: "nav"))))
        XCTAssertThrowsError(try layered("[bindings]\nrightctrl = \"keyboardType:navi\"\n", over: base)) {
            XCTAssertTrue("\($0)".hasPrefix("\(Self.personal):2: bindings.rightctrl: no layer 'navi'"), "\($0)")
        }
    }
}
