import CXKBCommon
import Glibc
import KeyholdKit

/// A `KeyboardLayout` for any XKB layout, built with xkbcommon from rules/model/layout/variant/
/// options (needs only the xkb-data files, no display server).
///
/// Both directions come from simulating the keys the virtual keyboard would press: for each of
/// no modifier, Shift (LEFTSHIFT), AltGr (RIGHTALT, when the keymap makes it ISO_Level3_Shift)
/// and Shift+AltGr, every key's character is read from an xkb_state. The reverse map (character
/// to keystroke) prefers main keys over the 102nd key and other extra keys, those over the
/// keypad, and within each group the lowest level, then the lowest key code. Evdev code = XKB
/// keycode - 8. The first layout group is used.
public final class XKBLayout: KeyboardLayout {
    public let name: String
    public let names: XKBNames
    /// What each key types, read once from the keymap, then read on every key.
    public let tables: Tables
    /// Whether RIGHTALT is AltGr (ISO_Level3_Shift) in this keymap.
    public var hasAltGr: Bool { tables.hasAltGr }
    /// Which keys are modifiers and locks, read from the keymap by pressing each key.
    public var modifierMap: ModifierMap { tables.modifierMap }
    private var keystrokes: [Character: Keystroke] = [:]
    /// The same for the ASCII characters, by code: most of what is typed, and hashing a
    /// Character for the dictionary cost more than the rest of planning a keystroke.
    private var asciiKeystrokes = [Keystroke?](repeating: nil, count: 128)

    /// What a keymap types: all a layout needs of it, so the built-in copy of `us`
    /// (`BuiltInKeymap`) stands for a compiled one and can be compared with it.
    public struct Tables: Equatable, Sendable {
        /// Whether RIGHTALT is AltGr (ISO_Level3_Shift).
        public var hasAltGr: Bool
        /// [combo][evdev code], combos in `XKBLayout.combos` order.
        public var characters: [[Character?]]
        /// The same with Caps Lock locked.
        public var capsLockCharacters: [[Character?]]
        public var modifierMap: ModifierMap
    }

    public enum Error: Swift.Error, CustomStringConvertible {
        case context
        case keymap(XKBNames)
        case keymapText(String)
        public var description: String {
            switch self {
            case .keymapText(let source): return "xkbcommon cannot compile the keymap from \(source)"
            case .context: return "xkbcommon: cannot create a context"
            case .keymap(let n): return "xkbcommon cannot compile the keymap for layout \"\(n.layoutName)\"" +
                (n.options.isEmpty ? "" : " with options \"\(n.options)\"") + " (model \(n.model), from \(n.source))"
            }
        }
    }

    static let combos: [ModifierKeys] = [[], .shift, .altGr, [.shift, .altGr]]
    static let highestCode = 247   // XKB keycodes stop at 255

    /// The keymap for rules/model/layout/variant/options.
    public convenience init(_ names: XKBNames) throws(Error) {
        guard let context = XKBLayout.makeContext() else { throw .context }
        defer { xkb_context_unref(context) }
        let keymap: OpaquePointer? = names.rules.withCString { rules in
            names.model.withCString { model in
                names.layout.withCString { layout in
                    names.variant.withCString { variant in
                        names.options.withCString { options in
                            var rmlvo = xkb_rule_names(rules: rules, model: model, layout: layout, variant: variant, options: options)
                            return xkb_keymap_new_from_names(context, &rmlvo, XKB_KEYMAP_COMPILE_NO_FLAGS)
                        }
                    }
                }
            }
        }
        guard let keymap else { throw .keymap(names) }
        defer { xkb_keymap_unref(keymap) }
        self.init(keymap: keymap, names: names)
    }

    /// A keymap as text (XKB_KEYMAP_FORMAT_TEXT_V1): what the session companion reports of the
    /// desktop's. Named after its first group (`German`). Keys in `excluded` (the companion's
    /// own temporary ones) type nothing.
    public convenience init(keymapText: String, source: String, excluding excluded: Set<KeyCode> = []) throws(Error) {
        guard let context = XKBLayout.makeContext() else { throw .context }
        defer { xkb_context_unref(context) }
        guard let keymap = xkb_keymap_new_from_string(context, keymapText, XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS)
        else { throw .keymapText(source) }
        defer { xkb_keymap_unref(keymap) }
        // The group's name is the client's text: what `keyhold status` prints of it is printable,
        // and short.
        let group = xkb_keymap_layout_get_name(keymap, 0).map { String(String(cString: $0).terminalSafe.prefix(100)) } ?? "unnamed"
        self.init(keymap: keymap, names: XKBNames(layout: group, source: source), excluding: excluded)
    }

    /// The keymap for `names` as text, as a companion reports a desktop's (nil: does not compile).
    public static func keymapText(for names: XKBNames) -> String? {
        guard let context = makeContext() else { return nil }
        defer { xkb_context_unref(context) }
        var rmlvo = xkb_rule_names(rules: nil, model: nil, layout: nil, variant: nil, options: nil)
        return names.layout.withCString { layout in
            names.variant.withCString { variant in
                names.options.withCString { options in
                    rmlvo.layout = layout; rmlvo.variant = variant; rmlvo.options = options
                    guard let keymap = xkb_keymap_new_from_names(context, &rmlvo, XKB_KEYMAP_COMPILE_NO_FLAGS) else { return nil }
                    defer { xkb_keymap_unref(keymap) }
                    guard let text = xkb_keymap_get_as_string(keymap, XKB_KEYMAP_FORMAT_TEXT_V1) else { return nil }
                    defer { free(text) }
                    return String(cString: text)
                }
            }
        }
    }

    /// An xkbcommon context whose own messages (which file is missing) become debug lines; a
    /// failure itself is reported by the caller with the layout's names.
    private static func makeContext() -> OpaquePointer? {
        guard let context = xkb_context_new(XKB_CONTEXT_NO_FLAGS) else { return nil }
        xkb_context_set_log_fn(context, { _, _, format, args in
            guard let format, let args else { return }
            var buffer = [CChar](repeating: 0, count: 512)
            _ = vsnprintf(&buffer, buffer.count, format, args)
            let message = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            Log.debug("xkbcommon: \(message)")
        })
        return context
    }

    convenience init(keymap: OpaquePointer, names: XKBNames, excluding excluded: Set<KeyCode> = []) {
        self.init(tables: XKBLayout.tables(of: keymap, excluding: excluded), names: names)
    }

    /// A layout from tables already read (the built-in `us`).
    init(tables: Tables, names: XKBNames) {
        self.names = names
        name = names.layoutName
        self.tables = tables
        keystrokes.reserveCapacity(256)   // us has 98 characters; growing it cost a third of making the layout
        // The reverse map, in order of preference.
        for tier in 0..<3 {
            for (c, combo) in XKBLayout.combos.enumerated() {
                for code in 1...XKBLayout.highestCode where XKBLayout.tier(of: code) == tier {
                    guard let character = tables.characters[c][code], keystrokes[character] == nil else { continue }
                    keystrokes[character] = Keystroke(KeyCode(UInt16(code)), combo)
                }
            }
        }
        for (character, stroke) in keystrokes {
            if let byte = character.asciiByte { asciiKeystrokes[byte] = stroke }
        }
    }

    /// Every key's character under each combo, with Caps Lock off and on, read from xkb_states.
    private static func tables(of keymap: OpaquePointer, excluding excluded: Set<KeyCode>) -> Tables {
        let xkb = { (key: KeyCode) in xkb_keycode_t(key.rawValue) + 8 }
        let base = xkb_state_new(keymap)
        let hasAltGr = xkb_state_key_get_one_sym(base, xkb(.rightAlt)) == UInt32(XKB_KEY_ISO_Level3_Shift)
        let hasShift = [UInt32(XKB_KEY_Shift_L), UInt32(XKB_KEY_Shift_R)].contains(xkb_state_key_get_one_sym(base, xkb(.leftShift)))
        xkb_state_unref(base)
        let maxCode = min(XKBLayout.highestCode, Int(xkb_keymap_max_keycode(keymap)) - 8)
        let capsIndex = xkb_keymap_mod_get_index(keymap, XKB_MOD_NAME_CAPS)
        let map = XKBLayout.modifierMap(keymap, maxCode: maxCode)
        var characters: [[Character?]] = [], capsLockCharacters: [[Character?]] = []

        for capsLock in [false, true] {
            for combo in XKBLayout.combos {
                var row = [Character?](repeating: nil, count: XKBLayout.highestCode + 1)
                defer { if capsLock { capsLockCharacters.append(row) } else { characters.append(row) } }
                if (combo.contains(.shift) && !hasShift) || (combo.contains(.altGr) && !hasAltGr) { continue }
                guard let state = xkb_state_new(keymap) else { continue }
                defer { xkb_state_unref(state) }
                for key in combo.keys { xkb_state_update_key(state, xkb(key), XKB_KEY_DOWN) }
                if capsLock && capsIndex != XKB_MOD_INVALID {
                    // Lock the Lock modifier as the kernel's Caps Lock LED state would, keeping
                    // the level keys held above.
                    let depressed = xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED)
                    _ = xkb_state_update_mask(state, depressed, 0, 1 << capsIndex, 0, 0, 0)
                }
                guard maxCode >= 1 else { continue }
                for code in 1...maxCode {
                    let key = KeyCode(UInt16(code))
                    if map.isModifierOrLock(key) || excluded.contains(key) { continue }
                    let cp = xkb_state_key_get_utf32(state, xkb(key))
                    let sym = xkb_state_key_get_one_sym(state, xkb(key))
                    row[code] = XKBLayout.character(cp, sym: sym, key: key)
                }
            }
        }
        return Tables(hasAltGr: hasAltGr, characters: characters, capsLockCharacters: capsLockCharacters, modifierMap: map)
    }

    /// Presses each key alone on a fresh state and reads which modifiers it holds (depressed) or
    /// locks: xkbcommon's own answer, so `ctrl:nocaps`, `caps:escape`, `caps:swapescape`,
    /// `altwin:swap_alt_win` and the rest are followed as the desktop follows them.
    private static func modifierMap(_ keymap: OpaquePointer, maxCode: Int) -> ModifierMap {
        let index = { (name: String) in xkb_keymap_mod_get_index(keymap, name) }
        let held: [(xkb_mod_index_t, ModifierKeys)] = [
            (index(XKB_MOD_NAME_SHIFT), .shift), (index(XKB_MOD_NAME_CTRL), .control),
            (index(XKB_MOD_NAME_ALT), .alt), (index(XKB_MOD_NAME_LOGO), .meta), (index("Mod5"), .altGr),
        ].filter { $0.0 != XKB_MOD_INVALID }
        let caps = index(XKB_MOD_NAME_CAPS), num = index(XKB_MOD_NAME_NUM)
        var roles = [KeyRole](repeating: .none, count: KeyCode.count)
        guard maxCode >= 1 else { return .standard }
        for code in 1...maxCode {
            guard let state = xkb_state_new(keymap) else { continue }
            defer { xkb_state_unref(state) }
            xkb_state_update_key(state, xkb_keycode_t(code + 8), XKB_KEY_DOWN)
            let locked = xkb_state_serialize_mods(state, XKB_STATE_MODS_LOCKED)
            let depressed = xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED)
            if caps != XKB_MOD_INVALID, locked & (1 << caps) != 0 { roles[code] = .capsLock; continue }
            if num != XKB_MOD_INVALID, locked & (1 << num) != 0 { roles[code] = .numLock; continue }
            let modifiers = held.reduce(into: ModifierKeys()) { m, pair in
                if depressed & (1 << pair.0) != 0 { m.formUnion(pair.1) }
            }
            if !modifiers.isEmpty { roles[code] = .modifier(modifiers) }
        }
        return ModifierMap { roles[Int($0.rawValue)] }
    }

    /// 0: the main block; 1: extra keys (102nd, JIS, media); 2: the keypad.
    private static func tier(of code: Int) -> Int {
        switch code {
        case 55, 71...83, 95, 96, 98, 117, 118, 121, 179, 180: return 2
        case 1...70: return 0
        default: return 1
        }
    }

    /// The character a code point stands for; control characters type nothing, except Enter
    /// and Tab (as `USLayout`: "\n" and "\t").
    private static func character(_ cp: UInt32, sym: xkb_keysym_t, key: KeyCode) -> Character? {
        if key == .enter { return cp == 0x0d ? "\n" : nil }
        if key == .tab { return cp == 0x09 || sym == UInt32(XKB_KEY_ISO_Left_Tab) ? "\t" : nil }
        guard cp >= 0x20, cp != 0x7f, !(0x80...0x9f).contains(cp), let scalar = Unicode.Scalar(cp) else { return nil }
        return Character(scalar)
    }

    public func keystroke(for character: Character) -> Keystroke? {
        if let byte = character.asciiByte { return keystroke(forASCII: UInt8(byte)) }
        return keystrokes[character]
    }

    public func keystroke(forASCII byte: UInt8) -> Keystroke? {
        Int(byte) < asciiKeystrokes.count ? asciiKeystrokes[Int(byte)] : nil
    }

    public func character(for key: KeyCode, modifiers: ModifierKeys) -> Character? {
        character(for: key, modifiers: modifiers, capsLock: false)
    }

    public func character(for key: KeyCode, modifiers: ModifierKeys, capsLock: Bool) -> Character? {
        let table = capsLock ? tables.capsLockCharacters : tables.characters
        let index = (modifiers.contains(.shift) ? 1 : 0) + (modifiers.contains(.altGr) ? 2 : 0)
        let code = Int(key.rawValue)
        guard code < table[index].count else { return nil }
        return table[index][code]
    }

    /// Every character the layout types directly.
    public var typableCharacters: [Character] { Array(keystrokes.keys) }
}
