import KeyholdKit

/// XKB's `us` keymap as tables built into the program, so a daemon on the most common layout
/// types from its first key without compiling a keymap first: the compile was the largest step
/// of a cold start (60 ms of 250 in the TCG guest, 2 ms natively). The system's own keymap is
/// still compiled, off the input thread (`KeymapCheck`), and takes over where it types
/// differently. `BuiltInKeymapTests` compares these tables with xkbcommon's and rewrites them.
enum BuiltInKeymap {
    /// The models whose `us` the tables are: Debian's default and the US keyboard's.
    static let models: Set<String> = ["pc105", "pc104"]

    /// The tables for `names` when they are the built-in `us` (no variant, no options).
    static func tables(for names: XKBNames) -> XKBLayout.Tables? {
        guard names.layout == "us", names.variant.isEmpty, names.options.isEmpty, names.rules == "evdev",
              models.contains(names.model) else { return nil }
        return usTables
    }

    /// Decoded once: at the start, then by the check, and on a reload to `us`.
    private static let usTables = us.tables

    /// Tables as the generated file writes them: per combo, flat pairs of key code and code
    /// point; per modifier or lock key, its code and role (`Encoded.role`).
    struct Encoded {
        var hasAltGr: Bool
        var rows: [[UInt32]]
        var capsLockRows: [[UInt32]]
        var roles: [UInt32]

        var tables: XKBLayout.Tables {
            let decode = { (pairs: [UInt32]) -> [Character?] in
                var row = [Character?](repeating: nil, count: XKBLayout.highestCode + 1)
                for i in stride(from: 0, to: pairs.count - 1, by: 2) {
                    row[Int(pairs[i])] = Unicode.Scalar(pairs[i + 1]).map(Character.init)
                }
                return row
            }
            var byCode = [KeyRole](repeating: .none, count: KeyCode.count)
            for i in stride(from: 0, to: roles.count - 1, by: 2) { byCode[Int(roles[i])] = Encoded.role(roles[i + 1]) }
            let map = ModifierMap { byCode[Int($0.rawValue)] }
            return XKBLayout.Tables(hasAltGr: hasAltGr, characters: rows.map(decode),
                                    capsLockCharacters: capsLockRows.map(decode), modifierMap: map)
        }

        /// 1: Caps Lock, 2: Num Lock, 0x100 + the modifiers' raw value: a modifier key.
        static func role(_ value: UInt32) -> KeyRole {
            switch value {
            case 1: return .capsLock
            case 2: return .numLock
            default: return .modifier(ModifierKeys(rawValue: UInt8(truncatingIfNeeded: value)))
            }
        }

        static func value(of role: KeyRole) -> UInt32? {
            switch role {
            case .none: return nil
            case .capsLock: return 1
            case .numLock: return 2
            case .modifier(let modifiers): return 0x100 + UInt32(modifiers.rawValue)
            }
        }
    }
}
