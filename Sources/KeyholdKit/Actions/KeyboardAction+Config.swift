/// The text form of actions used in configuration files and traces:
/// `backspace`, `character:é`, `text:hello`, `key:f13`, `keyboardType:symbolic`, `custom:name`.
extension KeyboardAction {
    /// Names of actions without a value, for suggestions.
    public static let simpleNames: [String: KeyboardAction] = [
        "backspace": .backspace, "space": .space, "tab": .tab, "return": .primary(.return),
        "enter": .primary(.return), "escape": .escape, "shift": .shift, "capsLock": .capsLock,
        "control": .control, "option": .option, "command": .command,
        "moveCursorBackward": .moveCursorBackward, "moveCursorForward": .moveCursorForward,
        "nextLocale": .nextLocale, "search": .search, "none": .none, "dismissKeyboard": .dismissKeyboard,
    ]
    /// Prefixes of actions that carry a value.
    public static let valuePrefixes = ["character", "text", "key", "keyboardType", "emoji", "custom", "primary"]

    public enum ParseError: Error, Equatable {
        case unknownAction(String)
        case missingValue(String)
        case unknownKey(String)
        case notOneCharacter(String)
        case unknownPrimary(String)
    }

    /// Parses the configuration form of an action.
    public init(configString s: String) throws(ParseError) {
        if let simple = KeyboardAction.simpleNames[s] { self = simple; return }
        guard let colon = s.firstIndex(of: ":") else { throw .unknownAction(s) }
        let kind = String(s[..<colon]), value = String(s[s.index(after: colon)...])
        guard KeyboardAction.valuePrefixes.contains(kind) else { throw .unknownAction(kind) }
        guard !value.isEmpty else { throw .missingValue(kind) }
        switch kind {
        case "character":
            guard value.count == 1 else { throw .notOneCharacter(value) }
            self = .character(value)
        case "text": self = .text(value)
        case "emoji": self = .emoji(value)
        case "custom": self = .custom(named: value)
        case "keyboardType": self = .keyboardType(KeyboardType(name: value))
        case "primary":
            guard let p = PrimaryType(rawValue: value) else { throw .unknownPrimary(value) }
            self = .primary(p)
        default:
            guard let code = KeyCode(name: value) else { throw .unknownKey(value) }
            self = .key(code)
        }
    }

    /// The configuration form of this action; `KeyboardAction(configString:)` reads it back.
    public var configString: String {
        switch self {
        case .character(let c): return "character:\(c)"
        case .text(let t): return "text:\(t)"
        case .emoji(let e): return "emoji:\(e)"
        case .custom(let n): return "custom:\(n)"
        case .keyboardType(let t): return "keyboardType:\(t.name)"
        case .key(let k): return "key:\(k.name)"
        case .primary(.return): return "return"
        case .primary(let p): return "primary:\(p.rawValue)"
        case .backspace: return "backspace"
        case .space: return "space"
        case .tab: return "tab"
        case .escape: return "escape"
        case .shift: return "shift"
        case .capsLock: return "capsLock"
        case .control: return "control"
        case .option: return "option"
        case .command: return "command"
        case .moveCursorBackward: return "moveCursorBackward"
        case .moveCursorForward: return "moveCursorForward"
        case .nextLocale: return "nextLocale"
        case .search: return "search"
        case .none: return "none"
        case .dismissKeyboard: return "dismissKeyboard"
        // Traces only: image keys are a custom handler's, not the configuration's.
        case .image(_, _, let imageName): return "image:\(imageName)"
        }
    }
}
