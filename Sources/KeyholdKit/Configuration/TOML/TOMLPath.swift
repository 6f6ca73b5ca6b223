/// One step of a path into a TOML document: a table key or an array index.
public enum TOMLPathComponent: Hashable, Sendable, CustomStringConvertible {
    case key(String)
    case index(Int)

    /// `key` bare when it can be (`long_press_ms`), else quoted (`"$"`); `[2]` for an index.
    public var description: String {
        switch self {
        case .key(let k): return TOMLPath.isBare(k) ? k : TOMLPath.quoted(k)
        case .index(let i): return "[\(i)]"
        }
    }
}

/// Dotted path text: `gestures.long_press_ms`, `callouts.custom."$"`, `feedback.override[1].audio`.
public enum TOMLPath {
    /// The text form of a path, as error messages show it.
    public static func string(_ path: [TOMLPathComponent]) -> String {
        var s = ""
        for c in path {
            if case .key = c, !s.isEmpty { s += "." }
            s += c.description
        }
        return s
    }

    /// Reads the text form back; nil when it is malformed.
    public static func parse(_ text: String) -> [TOMLPathComponent]? {
        var parser = TOMLParser(text)
        return parser.path()
    }

    static func isBare(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.allSatisfy(TOMLParser.isBareKeyByte)
    }

    public static func quoted(_ key: String) -> String {
        var s = "\""
        for c in key.unicodeScalars {
            switch c {
            case "\"": s += "\\\""
            case "\\": s += "\\\\"
            case "\n": s += "\\n"
            case "\t": s += "\\t"
            default:
                if c.value < 0x20 || c.value == 0x7F {
                    let hex = String(c.value, radix: 16, uppercase: true)
                    s += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    s.unicodeScalars.append(c)
                }
            }
        }
        return s + "\""
    }
}
