/// A layer of bindings, named as KeyboardKit names keyboard types.
public enum KeyboardType: Hashable, Sendable, CustomStringConvertible {
    case alphabetic
    case numeric
    case symbolic
    case emojis
    case custom(named: String)

    public init(name: String) {
        switch name {
        case "alphabetic": self = .alphabetic
        case "numeric": self = .numeric
        case "symbolic": self = .symbolic
        case "emojis": self = .emojis
        default: self = .custom(named: name)
        }
    }

    /// The name used in configuration (`[layers.NAME]`).
    public var name: String {
        switch self {
        case .alphabetic: return "alphabetic"
        case .numeric: return "numeric"
        case .symbolic: return "symbolic"
        case .emojis: return "emojis"
        case .custom(let name): return name
        }
    }
    public var description: String { name }
}
