/// A value of a TOML document, as Keyhold's parser reads it.
public enum TOMLValue: Sendable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    /// Dates and times are checked for form and kept as written: no Keyhold setting takes one.
    case date(String)
    case time(String)
    case dateTime(String)
    case array(TOMLArray)
    case table(TOMLTable)

    public var string: String? { if case .string(let s) = self { return s }; return nil }
    public var int: Int? { if case .integer(let i) = self { return i }; return nil }
    public var double: Double? { if case .float(let d) = self { return d }; return nil }
    public var bool: Bool? { if case .boolean(let b) = self { return b }; return nil }
    public var array: [TOMLValue]? { if case .array(let a) = self { return a.elements }; return nil }
    public var table: TOMLTable? { if case .table(let t) = self { return t }; return nil }

    /// What the value is, as error messages name it ("expected a string, found an integer").
    public var kindDescription: String {
        switch self {
        case .table: return "a table"
        case .array: return "an array"
        case .string: return "a string"
        case .integer: return "an integer"
        case .float: return "a floating-point number"
        case .boolean: return "a boolean"
        case .date: return "a date"
        case .time: return "a time"
        case .dateTime: return "a date-time"
        }
    }
}

/// A TOML table: its keys in the order they are first written.
///
/// A reference type because TOML builds tables up across the text (`[a]` then `[a.b]`, dotted
/// keys); once parsing ends nothing changes it, which is why it can be `@unchecked Sendable`.
public final class TOMLTable: @unchecked Sendable {
    /// How the table came to be, which decides what may still add keys to it (TOML 1.0, Table).
    enum Origin {
        /// Named on the way to another table (`a` in `[a.b]`): a header may still define it.
        case implicit
        /// Defined by a `[header]` or `[[header]]`.
        case header
        /// Made by a dotted key (`a.b = 1` makes `a`): more dotted keys may add to it.
        case dotted
        /// `{ ... }`: complete as written.
        case inline
    }

    var origin: Origin
    public private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]
    /// Where each key is first written (for a table, its header or the dotted key that made it).
    private var positions: [String: TOMLDocument.Position] = [:]

    init(origin: Origin) { self.origin = origin }

    public subscript(key: String) -> TOMLValue? { values[key] }
    public var isEmpty: Bool { keys.isEmpty }
    public func position(of key: String) -> TOMLDocument.Position? { positions[key] }

    /// Adds a key that is not there yet (the parser checks).
    func insert(_ key: String, _ value: TOMLValue, at position: TOMLDocument.Position) {
        if values.updateValue(value, forKey: key) == nil { keys.append(key) }
        if positions[key] == nil { positions[key] = position }
    }
}

/// A TOML array. A reference type so that `[[name]]` can append tables to it while parsing.
public final class TOMLArray: @unchecked Sendable {
    public private(set) var elements: [TOMLValue] = []
    /// Where each element is written (for an array of tables, its `[[header]]`).
    public private(set) var positions: [TOMLDocument.Position] = []
    /// Made by `[[name]]` headers (which may append to it), not written as `[ ... ]`.
    let isArrayOfTables: Bool

    init(isArrayOfTables: Bool) { self.isArrayOfTables = isArrayOfTables }

    func append(_ value: TOMLValue, at position: TOMLDocument.Position) {
        elements.append(value)
        positions.append(position)
    }
}
