import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// xkbcommon needs only the xkb-data files (/usr/share/X11/xkb), so these run on any host.
final class XKBLayoutTests: XCTestCase {
    func testUSMatchesBuiltInLayoutForEveryPrintableASCIICharacter() throws {
        let xkb = try XKBLayout(XKBNames(layout: "us"))
        let builtIn = USLayout()
        for value in 0x20...0x7e {
            let character = Character(Unicode.Scalar(UInt8(value)))
            XCTAssertEqual(xkb.keystroke(for: character), builtIn.keystroke(for: character), "keystroke for \(character)")
        }
        XCTAssertEqual(xkb.keystroke(for: "\n"), builtIn.keystroke(for: "\n"))
        XCTAssertEqual(xkb.keystroke(for: "\t"), builtIn.keystroke(for: "\t"))
        XCTAssertNil(xkb.keystroke(for: "é"), "us has no é key")
        XCTAssertFalse(xkb.hasAltGr)
    }

    /// The table every typed ASCII character is looked up in says what the Character lookup says.
    func testASCIIKeystrokesMatchTheCharacterLookup() throws {
        for names in [XKBNames(layout: "us"), XKBNames(layout: "fr"), XKBNames(layout: "de"), XKBNames(layout: "us", variant: "dvorak")] {
            let xkb = try XKBLayout(names)
            for byte in UInt8(0)..<128 {
                XCTAssertEqual(xkb.keystroke(forASCII: byte), xkb.keystroke(for: Character(Unicode.Scalar(byte))), "\(names) \(byte)")
            }
        }
        XCTAssertEqual(try XKBLayout(XKBNames(layout: "fr")).keystroke(forASCII: UInt8(ascii: "a")), Keystroke(.q))
    }

    func testUSForwardMapMatchesBuiltInLayout() throws {
        let xkb = try XKBLayout(XKBNames(layout: "us"))
        let builtIn = USLayout()
        for code in UInt16(1)...UInt16(58) where code != 55 {   // USLayout has no keypad
            let key = KeyCode(code)
            for modifiers in [ModifierKeys(), .shift] {
                XCTAssertEqual(xkb.character(for: key, modifiers: modifiers), builtIn.character(for: key, modifiers: modifiers),
                               "\(key) \(modifiers)")
            }
        }
        XCTAssertNil(xkb.character(for: .a, modifiers: .altGr), "us has no AltGr level")
        XCTAssertEqual(xkb.character(for: .a, modifiers: [], capsLock: true), "A")
        XCTAssertNil(xkb.character(for: .esc, modifiers: []))
        XCTAssertNil(xkb.character(for: .leftShift, modifiers: []))
    }

    func testFrenchAZERTY() throws {
        let fr = try XKBLayout(XKBNames(layout: "fr"))
        XCTAssertTrue(fr.hasAltGr)
        XCTAssertEqual(fr.keystroke(for: "é"), Keystroke(.two), "é is the 2 key, no modifier")
        XCTAssertEqual(fr.keystroke(for: "è"), Keystroke(KeyCode(8)))
        XCTAssertEqual(fr.keystroke(for: "a"), Keystroke(.q))
        XCTAssertEqual(fr.keystroke(for: "A"), Keystroke(.q, .shift))
        XCTAssertEqual(fr.keystroke(for: "q"), Keystroke(.a))
        XCTAssertEqual(fr.keystroke(for: "2"), Keystroke(.two, .shift))
        XCTAssertEqual(fr.keystroke(for: "€"), Keystroke(.e, .altGr))
        XCTAssertEqual(fr.keystroke(for: "@"), Keystroke(.zero, .altGr))
        XCTAssertEqual(fr.character(for: .two, modifiers: []), "é")
        XCTAssertEqual(fr.character(for: .q, modifiers: .shift), "A")
        XCTAssertEqual(fr.name, "fr")
    }

    func testGerman() throws {
        let de = try XKBLayout(XKBNames(layout: "de"))
        XCTAssertEqual(de.keystroke(for: "ß"), Keystroke(.minus), "ß is a direct key")
        XCTAssertEqual(de.keystroke(for: "z"), Keystroke(.y))
        XCTAssertEqual(de.keystroke(for: "y"), Keystroke(.z))
        XCTAssertEqual(de.keystroke(for: "ü"), Keystroke(KeyCode(26)))
        XCTAssertEqual(de.keystroke(for: "Ö"), Keystroke(KeyCode(39), .shift))
        XCTAssertEqual(de.keystroke(for: "@"), Keystroke(.q, .altGr))
        XCTAssertEqual(de.keystroke(for: "<"), Keystroke(KeyCode(86)), "the 102nd key")
        XCTAssertEqual(de.keystroke(for: "/"), Keystroke(KeyCode(8), .shift), "main keys before the keypad")
        XCTAssertEqual(de.keystroke(for: "*"), Keystroke(KeyCode(27), .shift))
        XCTAssertNil(de.keystroke(for: "é"), "dead keys are not used: é goes through the Unicode method")
    }

    /// Every character the layout types comes back from its keystroke (ASCII ones are found by
    /// code, the rest by the dictionary).
    func testEveryTypableCharacterHasTheKeystrokeThatTypesIt() throws {
        for name in ["us", "de", "fr"] {
            let layout = try XKBLayout(XKBNames(layout: name))
            XCTAssertGreaterThan(layout.typableCharacters.count, 90, name)
            for character in layout.typableCharacters {
                let stroke = layout.keystroke(for: character)
                XCTAssertEqual(stroke.flatMap { layout.character(for: $0.key, modifiers: $0.modifiers) }, character,
                               "\(name): \(character.unicodeScalars.map { String($0.value, radix: 16) })")
            }
            XCTAssertNil(layout.keystroke(for: "\r\n"), name)
        }
    }

    /// The keymap a companion reports is the same layout as the names it came from, less the
    /// keys that hold the companion's own characters.
    func testKeymapTextAsTheCompanionReportsIt() throws {
        let text = try XCTUnwrap(XKBLayout.keymapText(for: XKBNames(layout: "de")))
        let fromText = try XKBLayout(keymapText: text, source: "test")
        let fromNames = try XKBLayout(XKBNames(layout: "de"))
        XCTAssertEqual(fromText.name, "German")
        for c in "aäöüß€@zy1!" {
            XCTAssertEqual(fromText.keystroke(for: c), fromNames.keystroke(for: c), "\(c)")
        }
        let without = try XKBLayout(keymapText: text, source: "test", excluding: [KeyCode(40)])   // ä's key
        XCTAssertNil(without.keystroke(for: "ä"))
        XCTAssertEqual(without.keystroke(for: "ö"), fromNames.keystroke(for: "ö"))
        XCTAssertThrowsError(try XKBLayout(keymapText: "xkb_keymap {", source: "test"))
    }

    func testVariantAndOptions() throws {
        let dvorak = try XKBLayout(XKBNames(layout: "us", variant: "dvorak"))
        XCTAssertEqual(dvorak.keystroke(for: "a"), Keystroke(.a))
        XCTAssertEqual(dvorak.keystroke(for: "o"), Keystroke(.s))
        XCTAssertEqual(dvorak.name, "us(dvorak)")
        let intl = try XKBLayout(XKBNames(layout: "us", variant: "altgr-intl"))
        XCTAssertTrue(intl.hasAltGr)
        XCTAssertEqual(intl.keystroke(for: "é"), Keystroke(.e, .altGr))
        let compose = try XKBLayout(XKBNames(layout: "fr", options: "compose:ralt"))
        XCTAssertFalse(compose.hasAltGr, "RIGHTALT is Compose: no AltGr level")
        XCTAssertNil(compose.keystroke(for: "€"))
    }

    func testUnknownLayoutFails() {
        XCTAssertThrowsError(try XKBLayout(XKBNames(layout: "no-such-layout", source: "config"))) { error in
            XCTAssertTrue("\(error)".contains("no-such-layout"))
        }
    }

    func testPlannerTypesWithXKBLayout() throws {
        let planner = KeystrokePlanner(layout: try XKBLayout(XKBNames(layout: "fr")), unicodeMethod: .console)
        var steps: [KeystrokeStep] = []
        try planner.plan("é", capsLock: false, into: &steps)
        XCTAssertEqual(steps, [.tap(Keystroke(.two))])
        steps.removeAll()
        try planner.plan("ñ", capsLock: false, into: &steps)
        XCTAssertEqual(steps.first, .down(.leftAlt), "ñ is not on fr: console Unicode method")
    }

    /// Caps Lock changes only the keys the layout says it changes: on AZERTY the digit row keeps
    /// é and 2 apart, so the planner must not invert Shift there as it does for letters.
    func testPlannerFollowsTheLayoutUnderCapsLock() throws {
        let fr = try XKBLayout(XKBNames(layout: "fr"))
        let planner = KeystrokePlanner(layout: fr, unicodeMethod: .console)
        func typed(_ c: Character) throws -> Character? {
            var steps: [KeystrokeStep] = []
            try planner.plan(c, capsLock: true, into: &steps)
            guard steps.count == 1, case .tap(let stroke) = steps[0] else { return nil }   // Unicode method
            return fr.character(for: stroke.key, modifiers: stroke.modifiers, capsLock: true)
        }
        XCTAssertEqual(fr.character(for: .q, modifiers: [], capsLock: true), "A")
        var steps: [KeystrokeStep] = []
        try planner.plan("a", capsLock: true, into: &steps)
        XCTAssertEqual(steps, [.tap(Keystroke(.q, .shift))], "a letter: Shift inverted")
        for c: Character in ["a", "A", "z", "Z", "2", "é", "è", "à", "ç", "€", "@", "ù", ";", "1"] {
            let result = try typed(c)
            XCTAssertTrue(result == c || result == nil, "\(c) typed as \(String(describing: result)) under Caps Lock")
        }
    }
}

final class XKBNamesTests: XCTestCase {
    func testParsesDefaultKeyboardFile() {
        let text = """
            # KEYBOARD CONFIGURATION FILE
            XKBMODEL="pc105"
            XKBLAYOUT="fr"
            XKBVARIANT='oss'
            export XKBOPTIONS=compose:ralt # comment
            BACKSPACE="guess"
            """
        let values = XKBNames.parseDefaults(text)
        XCTAssertEqual(values["XKBLAYOUT"], "fr")
        XCTAssertEqual(values["XKBVARIANT"], "oss")
        XCTAssertEqual(values["XKBOPTIONS"], "compose:ralt")
        XCTAssertEqual(values["XKBMODEL"], "pc105")
    }

    func testResolveOrder() throws {
        let dir = NSTemporaryDirectory() + "keyhold-xkb-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/keyboard"
        try "XKBLAYOUT=\"de\"\nXKBVARIANT=\"nodeadkeys\"\n".write(toFile: file, atomically: true, encoding: .utf8)

        var output = KeyholdConfiguration.OutputSettings()
        var names = XKBNames.resolve(output, files: [file])
        XCTAssertEqual(names.layoutName, "de(nodeadkeys)")
        XCTAssertEqual(names.source, file)

        output.layout = "fr"
        names = XKBNames.resolve(output, files: [file])
        XCTAssertEqual(names.layoutName, "fr")
        XCTAssertEqual(names.source, "config")

        names = XKBNames.resolve(KeyholdConfiguration.OutputSettings(), files: [dir + "/missing"])
        XCTAssertEqual(names.layoutName, "us")
        XCTAssertEqual(names.source, "built-in")

        // Without a companion: localed's X11 settings first, then /etc/default/keyboard, then
        // the XKB keys of vconsole.conf (its console KEYMAP is not an XKB name).
        let localed = dir + "/00-keyboard.conf", vconsole = dir + "/vconsole.conf"
        try """
            # Written by systemd-localed(8)
            Section "InputClass"
                    Identifier "system-keyboard"
                    MatchIsKeyboard "on"
                    Option "XkbLayout" "ch"
                    Option "XkbVariant" "fr"
                    Option "XkbOptions" "ctrl:nocaps"
            EndSection
            """.write(toFile: localed, atomically: true, encoding: .utf8)
        try "KEYMAP=de-latin1\nXKBLAYOUT=pl\n".write(toFile: vconsole, atomically: true, encoding: .utf8)
        names = XKBNames.resolve(KeyholdConfiguration.OutputSettings(), files: [localed, file, vconsole])
        XCTAssertEqual(names.description, "ch(fr) options ctrl:nocaps model pc105 (from \(localed))")
        names = XKBNames.resolve(KeyholdConfiguration.OutputSettings(), files: [dir + "/none.conf", file, vconsole])
        XCTAssertEqual(names.source, file)
        names = XKBNames.resolve(KeyholdConfiguration.OutputSettings(), files: [dir + "/none.conf", dir + "/missing", vconsole])
        XCTAssertEqual(names.layoutName, "pl")
        XCTAssertEqual(names.source, vconsole)
    }

    /// The daemon and `keyhold simulate` resolve `[output]` with one function; simulate reads no
    /// system file, so it has `us` where the daemon has the system's layout, and the configured
    /// variant and options the same (ctrl:nocaps: Caps Lock is Ctrl in both).
    func testSimulationResolvesAsTheDaemonWithoutTheSystemsLayout() throws {
        let dir = NSTemporaryDirectory() + "keyhold-xkb-sim-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let system = dir + "/keyboard"
        try "XKBLAYOUT=\"de\"\nXKBOPTIONS=\"caps:escape\"\n".write(toFile: system, atomically: true, encoding: .utf8)
        var output = KeyholdConfiguration.OutputSettings()
        output.options = "ctrl:nocaps"

        let (daemonLayout, daemonNames) = try KeyholdDaemon.makeLayout(output, files: [system])
        XCTAssertEqual(daemonNames.description, "de options ctrl:nocaps model pc105 (from \(system))")
        let (simulatedLayout, simulatedNames) = try KeyholdDaemon.makeLayout(output, files: [])
        XCTAssertEqual(simulatedNames, XKBNames(layout: "us", options: "ctrl:nocaps"))
        for layout in [daemonLayout, simulatedLayout] {
            XCTAssertEqual(layout.modifierMap.role(of: .capsLock), .modifier(.control), layout.name)
        }

        output.variant = "dvorak"
        XCTAssertEqual(try KeyholdDaemon.makeLayout(output, files: []).1.layoutName, "us(dvorak)")
        XCTAssertEqual(try KeyholdDaemon.makeLayout(KeyholdConfiguration.OutputSettings(), files: []).1, XKBNames())
    }
}

final class DevicePolicyTests: XCTestCase {
    private func identity(name: String = "AT Translated Set 2 keyboard", vendor: UInt16 = 1, product: UInt16 = 1,
                          bus: UInt16 = 0x11, keyboard: Bool = true, pointer: Bool = false) -> DeviceIdentity {
        DeviceIdentity(path: "/dev/input/event3", name: name, vendor: vendor, product: product, bustype: bus,
                       phys: "isa0060/serio0/input0", hasLettersAndSpace: keyboard, hasPointerAxes: pointer)
    }

    func testDefaultHeuristic() {
        let settings = KeyholdConfiguration.DeviceSettings()
        XCTAssertTrue(DevicePolicy.decide(identity(), settings: settings).grab)
        XCTAssertFalse(DevicePolicy.decide(identity(name: "Power Button", keyboard: false), settings: settings).grab)
        let combo = DevicePolicy.decide(identity(name: "Logitech K400", pointer: true), settings: settings)
        XCTAssertFalse(combo.grab)
        XCTAssertTrue(combo.reason.contains("pointer"))
    }

    func testNeverOwnDevice() {
        var settings = KeyholdConfiguration.DeviceSettings()
        settings.include = [DevicePattern("*")]
        let own = identity(name: VirtualKeyboard.deviceName, vendor: VirtualKeyboard.vendor,
                           product: VirtualKeyboard.product, bus: VirtualKeyboard.bustype)
        let decision = DevicePolicy.decide(own, settings: settings)
        XCTAssertFalse(decision.grab)
        XCTAssertEqual(decision.reason, "Keyhold's own virtual keyboard")
        // Same id on another bus (the e2e probe's source keyboards): not ours.
        let lookalike = identity(name: "probe keyboard", vendor: VirtualKeyboard.vendor, product: VirtualKeyboard.product, bus: 0x03)
        XCTAssertTrue(DevicePolicy.decide(lookalike, settings: KeyholdConfiguration.DeviceSettings()).grab)
        // Same name, other id: not ours either.
        let sameName = identity(name: VirtualKeyboard.deviceName, vendor: 0x1234, product: 1, bus: VirtualKeyboard.bustype)
        XCTAssertTrue(DevicePolicy.decide(sameName, settings: KeyholdConfiguration.DeviceSettings()).grab)
    }

    func testPatternsAreNamed() {
        var settings = KeyholdConfiguration.DeviceSettings()
        settings.exclude = [DevicePattern("AT Translated*")]
        var decision = DevicePolicy.decide(identity(), settings: settings)
        XCTAssertFalse(decision.grab)
        XCTAssertEqual(decision.reason, "excluded by pattern \"AT Translated*\"")

        settings = KeyholdConfiguration.DeviceSettings()
        settings.include = [DevicePattern("0001:0001")]
        decision = DevicePolicy.decide(identity(keyboard: false), settings: settings)
        XCTAssertTrue(decision.grab)
        XCTAssertEqual(decision.reason, "included by pattern \"0001:0001\"")
        decision = DevicePolicy.decide(identity(vendor: 2), settings: settings)
        XCTAssertFalse(decision.grab)
    }
}

/// Which configuration file applies: --config, the system's, the default.
final class ConfigurationLocationTests: XCTestCase {
    func testLookupOrder() {
        XCTAssertEqual(ConfigurationLocation.path(explicit: "/x.toml"), "/x.toml")
        let system = FileManager.default.fileExists(atPath: ConfigurationLoader.systemPath) ? ConfigurationLoader.systemPath : nil
        XCTAssertEqual(ConfigurationLocation.path(explicit: nil), system)
    }
}
