/// A TOML 1.0 parser over UTF-8 bytes, written for configuration files a person edits.
///
/// Keyhold reads its configuration on start and on every reload, inside the daemon that types
/// every key: a parser that can abort (an assertion, a trap, a stack overflow) would take typing
/// down with it. So this one checks every rule of TOML 1.0 and reports the first broken one with
/// its line and column, never traps, bounds its recursion, and does work linear in the text.
/// Its position table is what lets configuration errors name the line of a key.
struct TOMLParser {
    /// Arrays and inline tables nested deeper than this are refused: recursion stays bounded.
    static let maximumNesting = 100
    /// Parts of one dotted key or header (`a.b.c` has 3): error paths stay short.
    static let maximumKeyParts = 32

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var column = 1
    private var nesting = 0

    let root = TOMLTable(origin: .implicit)
    /// The table that `key = value` lines go into: the last header's.
    private var current: TOMLTable
    private var currentPath: [TOMLPathComponent] = []

    init(_ text: String) {
        bytes = Array(text.utf8)
        current = root
    }

    // MARK: - Bytes and positions

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
    private func peek(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
    private var position: TOMLDocument.Position { .init(line: line, column: column) }

    private mutating func advance() {
        guard index < bytes.count else { return }
        let byte = bytes[index]
        if byte == .newline {
            line += 1; column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1 // a UTF-8 continuation byte is part of the scalar already counted
        }
        index += 1
    }

    private mutating func advance(_ count: Int) { for _ in 0..<count { advance() } }

    private func error(_ message: String, at where_: TOMLDocument.Position? = nil) -> TOMLSyntaxError {
        let p = where_ ?? position
        return TOMLSyntaxError(line: p.line, column: p.column, message: message)
    }

    /// What stands at the cursor, for messages: `'x'`, `a newline`, `the end of the file`.
    private var found: String {
        guard let byte = peek else { return "the end of the file" }
        switch byte {
        case .newline, .carriageReturn: return "a newline"
        case 0..<0x20, 0x7F: return "control character U+\(hex4(UInt32(byte)))"
        default:
            var end = index + 1
            while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
            return "'\(String(decoding: bytes[index..<end], as: UTF8.self))'"
        }
    }

    private func hex4(_ v: UInt32) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    static func isBareKeyByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): return true
        default: return false
        }
    }

    /// Control characters TOML forbids in comments and strings (tab is allowed).
    private static func isControl(_ b: UInt8) -> Bool { (b < 0x20 && b != .tab) || b == 0x7F }

    // MARK: - Whitespace, comments, newlines

    private mutating func skipWhitespace() {
        while let b = peek, b == .space || b == .tab { advance() }
    }

    /// `#` to the end of the line (the newline stays).
    private mutating func comment() throws(TOMLSyntaxError) {
        advance()
        while let b = peek, b != .newline {
            if b == .carriageReturn && peek(1) == .newline { return }
            if Self.isControl(b) { throw error("\(found) in a comment") }
            advance()
        }
    }

    /// A newline (LF or CRLF); a lone CR is not one.
    private mutating func newline() throws(TOMLSyntaxError) {
        if peek == .carriageReturn {
            guard peek(1) == .newline else { throw error("a carriage return must be followed by a newline") }
            advance()
        }
        advance()
    }

    private var atNewline: Bool { peek == .newline || (peek == .carriageReturn && peek(1) == .newline) }

    /// After a key/value or a header: spaces, a comment, then a newline or the end.
    private mutating func endOfLine(after what: String) throws(TOMLSyntaxError) {
        skipWhitespace()
        if peek == .hash { try comment() }
        guard peek == nil || atNewline else {
            throw error("expected a newline after \(what), found \(found)")
        }
        if peek != nil { try newline() }
    }

    /// Inside arrays: whitespace, newlines and comments.
    private mutating func skipBlank() throws(TOMLSyntaxError) {
        while let b = peek {
            if b == .space || b == .tab { advance() }
            else if atNewline || b == .carriageReturn { try newline() }
            else if b == .hash { try comment() }
            else { return }
        }
    }

    // MARK: - The document

    mutating func document() throws(TOMLSyntaxError) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 } // a byte-order mark
        while true {
            skipWhitespace()
            guard let b = peek else { return }
            if b == .hash { try comment() }
            if atNewline || peek == .carriageReturn { try newline(); continue }
            guard let b = peek else { return }
            if b == .openBracket {
                try header()
                try endOfLine(after: "the table header")
            } else {
                try keyValue(into: current, at: currentPath)
                try endOfLine(after: "the value")
            }
        }
    }

    // MARK: - Keys

    /// A bare, `"basic"` or `'literal'` key.
    private mutating func simpleKey() throws(TOMLSyntaxError) -> String {
        switch peek {
        case .quote?: return try basicString()
        case .apostrophe?: return try literalString()
        default:
            let start = index
            while let b = peek, Self.isBareKeyByte(b) { advance() }
            guard index > start else { throw error("expected a key, found \(found)") }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }

    /// Simple keys joined by dots, with whitespace around each part.
    private mutating func dottedKey() throws(TOMLSyntaxError) -> [String] {
        var parts: [String] = []
        let start = position
        while true {
            skipWhitespace()
            parts.append(try simpleKey())
            skipWhitespace()
            guard peek == .dot else { return parts }
            guard parts.count < Self.maximumKeyParts else {
                throw error("a key of more than \(Self.maximumKeyParts) dotted parts", at: start)
            }
            advance()
        }
    }

    /// `a.b = value` into `table`, whose path is `path`.
    private mutating func keyValue(into table: TOMLTable, at path: [TOMLPathComponent]) throws(TOMLSyntaxError) {
        let start = position
        let parts = try dottedKey()
        guard peek == .equals else { throw error("expected '=' after the key, found \(found)") }
        advance()
        skipWhitespace()
        let fullPath = path + parts.map { .key($0) }
        let value = try self.value()
        // Dotted keys make tables on the way; they may only add to tables made the same way.
        var target = table
        var walked = path
        for part in parts.dropLast() {
            walked.append(.key(part))
            if let existing = target[part] {
                guard case .table(let sub) = existing, sub.origin == .dotted else {
                    throw error("'\(TOMLPath.string(walked))' is already defined, and dotted keys cannot add to it", at: start)
                }
                target = sub
            } else {
                let sub = TOMLTable(origin: .dotted)
                target.insert(part, .table(sub), at: start)
                target = sub
            }
        }
        let last = parts[parts.count - 1]
        guard target[last] == nil else {
            throw error("'\(TOMLPath.string(fullPath))' is defined twice", at: start)
        }
        target.insert(last, value, at: start)
    }

    /// `[a.b]` or `[[a.b]]`; makes its table the current one.
    private mutating func header() throws(TOMLSyntaxError) {
        let start = position
        advance()
        let isArray = peek == .openBracket
        if isArray { advance() }
        let parts = try dottedKey()
        for _ in 0..<(isArray ? 2 : 1) {
            guard peek == .closeBracket else {
                throw error("expected '\(isArray ? "]]" : "]")' to end the table header, found \(found)")
            }
            advance()
        }

        var table = root
        var path: [TOMLPathComponent] = []
        for (i, part) in parts.enumerated() {
            path.append(.key(part))
            let name = TOMLPath.string(path)
            let existing = table[part]
            if i == parts.count - 1 {
                if isArray {
                    let array: TOMLArray
                    switch existing {
                    case nil:
                        array = TOMLArray(isArrayOfTables: true)
                        table.insert(part, .array(array), at: start)
                    case .array(let a)? where a.isArrayOfTables:
                        array = a
                    default:
                        throw error("'\(name)' is already defined as \(existing!.kindDescription), not an array of tables", at: start)
                    }
                    let element = TOMLTable(origin: .header)
                    array.append(.table(element), at: start)
                    path.append(.index(array.elements.count - 1))
                    table = element
                } else {
                    switch existing {
                    case nil:
                        let sub = TOMLTable(origin: .header)
                        table.insert(part, .table(sub), at: start)
                        table = sub
                    case .table(let sub)? where sub.origin == .implicit:
                        sub.origin = .header
                        table = sub
                    case .table(let sub)?:
                        let how = sub.origin == .header ? "is defined twice" :
                            sub.origin == .dotted ? "is already defined by dotted keys" : "is already defined as an inline table"
                        throw error("table [\(name)] \(how)", at: start)
                    case .array(let a)? where a.isArrayOfTables:
                        throw error("'\(name)' is an array of tables: its elements are [[\(name)]]", at: start)
                    case let other?:
                        throw error("'\(name)' is already defined as \(other.kindDescription)", at: start)
                    }
                }
            } else {
                switch existing {
                case nil:
                    let sub = TOMLTable(origin: .implicit)
                    table.insert(part, .table(sub), at: start)
                    table = sub
                case .table(let sub)? where sub.origin != .inline:
                    table = sub
                case .array(let a)? where a.isArrayOfTables:
                    // `[a.b]` after `[[a]]` is in the last element of a.
                    guard case .table(let last)? = a.elements.last else { throw error("'\(name)' is empty", at: start) }
                    path.append(.index(a.elements.count - 1))
                    table = last
                case let other?:
                    throw error("'\(name)' is already defined as \(other.kindDescription), so it cannot hold tables", at: start)
                }
            }
        }
        current = table
        currentPath = path
    }

    /// The text form of a path (`a.b[2].c`), for `TOMLPath.parse`; nil when malformed.
    mutating func path() -> [TOMLPathComponent]? {
        var path: [TOMLPathComponent] = []
        skipWhitespace()
        while peek != nil {
            if peek == .openBracket {
                advance()
                let start = index
                while let b = peek, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { advance() }
                guard peek == .closeBracket, index > start, index - start < 19,
                      let i = Int(String(decoding: bytes[start..<index], as: UTF8.self)) else { return nil }
                advance()
                path.append(.index(i))
            } else {
                if !path.isEmpty {
                    guard peek == .dot else { return nil }
                    advance()
                    skipWhitespace()
                }
                guard let key = try? simpleKey() else { return nil }
                path.append(.key(key))
            }
            skipWhitespace()
        }
        return path
    }

    // MARK: - Values

    private mutating func value() throws(TOMLSyntaxError) -> TOMLValue {
        switch peek {
        case .quote?:
            return .string(peek(1) == .quote && peek(2) == .quote ? try multiLineString(quote: .quote) : try basicString())
        case .apostrophe?:
            return .string(peek(1) == .apostrophe && peek(2) == .apostrophe ? try multiLineString(quote: .apostrophe) : try literalString())
        case .openBracket?:
            return try array()
        case .openBrace?:
            return try inlineTable()
        case nil:
            throw error("expected a value, found the end of the file")
        default:
            return try scalar()
        }
    }

    private mutating func nest() throws(TOMLSyntaxError) {
        nesting += 1
        guard nesting <= Self.maximumNesting else {
            throw error("arrays and inline tables nested more than \(Self.maximumNesting) deep")
        }
    }

    private mutating func array() throws(TOMLSyntaxError) -> TOMLValue {
        try nest()
        advance() // [
        let array = TOMLArray(isArrayOfTables: false)
        while true {
            try skipBlank()
            if peek == .closeBracket { advance(); break }
            let start = position
            array.append(try value(), at: start)
            try skipBlank()
            if peek == .comma { advance(); continue }
            if peek == .closeBracket { advance(); break }
            throw error("expected ',' or ']' in the array, found \(found)")
        }
        nesting -= 1
        return .array(array)
    }

    /// `{ a = 1, b.c = 2 }`: on one line, no trailing comma, complete as written. (Its errors
    /// name keys from the table itself: the line and column say where it is.)
    private mutating func inlineTable() throws(TOMLSyntaxError) -> TOMLValue {
        try nest()
        advance() // {
        let table = TOMLTable(origin: .dotted)
        skipWhitespace()
        if peek == .closeBrace {
            advance()
        } else {
            while true {
                try keyValue(into: table, at: [])
                skipWhitespace()
                if peek == .comma { advance(); continue }
                if peek == .closeBrace { advance(); break }
                throw error("expected ',' or '}' in the inline table, found \(found)")
            }
        }
        table.origin = .inline
        nesting -= 1
        return .table(table)
    }

    // MARK: Strings

    /// `"..."` with escapes, on one line.
    private mutating func basicString() throws(TOMLSyntaxError) -> String {
        let start = position
        advance()
        var out: [UInt8] = []
        while true {
            guard let b = peek else { throw error("unterminated string", at: start) }
            switch b {
            case .quote:
                advance()
                return String(decoding: out, as: UTF8.self)
            case .backslash:
                try escape(into: &out)
            case .newline, .carriageReturn:
                throw error("unterminated string (a basic string ends on its line; use \"\"\" for several lines)", at: start)
            default:
                if Self.isControl(b) { throw error("\(found) in a string (write it as an escape, as \\u0009)") }
                out.append(b)
                advance()
            }
        }
    }

    /// `'...'`, as written, on one line.
    private mutating func literalString() throws(TOMLSyntaxError) -> String {
        let start = position
        advance()
        let from = index
        while true {
            guard let b = peek else { throw error("unterminated string", at: start) }
            if b == .apostrophe {
                let s = String(decoding: bytes[from..<index], as: UTF8.self)
                advance()
                return s
            }
            if b == .newline || b == .carriageReturn {
                throw error("unterminated string (a literal string ends on its line; use ''' for several lines)", at: start)
            }
            if Self.isControl(b) { throw error("\(found) in a string") }
            advance()
        }
    }

    /// `"""..."""` or `'''...'''`: newlines kept (CRLF as LF), a newline right after the opening
    /// quotes dropped. In the basic form (`"""`) escapes apply, and a backslash at the end of a
    /// line joins it to the next non-blank text.
    private mutating func multiLineString(quote: UInt8) throws(TOMLSyntaxError) -> String {
        let start = position
        let escapes = quote == .quote
        advance(3)
        if atNewline { try newline() }
        var out: [UInt8] = []
        while true {
            guard let b = peek else { throw error("unterminated string", at: start) }
            switch b {
            case quote where peek(1) == quote && peek(2) == quote:
                try closeMultiLine(quote: quote, into: &out)
                return String(decoding: out, as: UTF8.self)
            case .backslash where escapes:
                // A line-ending backslash: only whitespace may follow it on its line.
                var ahead = 1
                while let w = peek(ahead), w == .space || w == .tab { ahead += 1 }
                let next = peek(ahead)
                if next == .newline || (next == .carriageReturn && peek(ahead + 1) == .newline) {
                    advance(ahead)
                    while let w = peek, w == .space || w == .tab || w == .newline || w == .carriageReturn {
                        if w == .carriageReturn { try newline() } else { advance() }
                    }
                } else {
                    try escape(into: &out)
                }
            case .carriageReturn:
                try newline()
                out.append(.newline)
            default:
                if b != .newline && Self.isControl(b) {
                    throw error("\(found) in a string" + (escapes ? " (write it as an escape, as \\u0009)" : ""))
                }
                out.append(b)
                advance()
            }
        }
    }

    /// At three closing quotes: up to two more belong to the content (`""""` ends with one in it).
    private mutating func closeMultiLine(quote: UInt8, into out: inout [UInt8]) throws(TOMLSyntaxError) {
        var count = 0
        while peek(count) == quote { count += 1 }
        guard count <= 5 else { throw error("too many quotes at the end of a multi-line string") }
        for _ in 0..<(count - 3) { out.append(quote) }
        advance(count)
    }

    /// A backslash escape in a basic string.
    private mutating func escape(into out: inout [UInt8]) throws(TOMLSyntaxError) {
        let start = position
        advance() // backslash
        guard let e = peek else { throw error("unterminated string") }
        advance()
        let simple: UInt8?
        switch e {
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "t"): simple = .tab
        case UInt8(ascii: "n"): simple = .newline
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "r"): simple = .carriageReturn
        case .quote: simple = .quote
        case .backslash: simple = .backslash
        case UInt8(ascii: "u"), UInt8(ascii: "U"): simple = nil
        default:
            throw error("unknown escape '\\\(String(decoding: [e], as: UTF8.self))' (use \\b \\t \\n \\f \\r \\\" \\\\ \\uXXXX or \\UXXXXXXXX)", at: start)
        }
        if let simple { out.append(simple); return }
        let digits = e == UInt8(ascii: "u") ? 4 : 8
        var value: UInt32 = 0
        for _ in 0..<digits {
            guard let h = peek, let d = Self.hexDigit(h) else {
                throw error("\\\(e == UInt8(ascii: "u") ? "u" : "U") needs \(digits) hexadecimal digits", at: start)
            }
            value = value << 4 | UInt32(d)
            advance()
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw error("\\\(e == UInt8(ascii: "u") ? "u" : "U")\(hex4(value)) is not a Unicode scalar value", at: start)
        }
        out.append(contentsOf: String(scalar).utf8)
    }

    private static func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    // MARK: Numbers, booleans, dates

    /// A bare value: a boolean, number, date or time, read up to its end and then checked whole.
    private mutating func scalar() throws(TOMLSyntaxError) -> TOMLValue {
        let start = position
        let from = index
        func isTokenByte(_ b: UInt8) -> Bool {
            Self.isBareKeyByte(b) || b == .plus || b == .dot || b == .colon
        }
        while let b = peek, isTokenByte(b) { advance() }
        var token = Array(bytes[from..<index])
        // A date-time may put a space between the date and the time.
        if TOMLScalar.isDate(token), peek == .space, let h = peek(1), let m = peek(2), peek(3) == .colon,
           TOMLScalar.isDigit(h), TOMLScalar.isDigit(m) {
            advance()
            while let b = peek, isTokenByte(b) { advance() }
            token = Array(bytes[from..<index])
        }
        guard !token.isEmpty else { throw error("expected a value, found \(found)") }
        if let value = TOMLScalar.parse(token) { return value }
        var text = String(decoding: token.prefix(40), as: UTF8.self)
        if token.count > 40 { text += "…" }
        throw error("'\(text)' is not a value (a string is quoted, a number fits in 64 bits)", at: start)
    }
}

/// The bare values of TOML: booleans, integers, floats, dates and times, checked as the
/// specification writes them (no leading zeros, underscores only between digits, real dates).
enum TOMLScalar {
    static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    static func parse(_ t: [UInt8]) -> TOMLValue? {
        switch t {
        case Array("true".utf8): return .boolean(true)
        case Array("false".utf8): return .boolean(false)
        case Array("inf".utf8), Array("+inf".utf8): return .float(.infinity)
        case Array("-inf".utf8): return .float(-.infinity)
        case Array("nan".utf8), Array("+nan".utf8), Array("-nan".utf8): return .float(.nan)
        default: break
        }
        if let i = integer(t) { return .integer(i) }
        if let d = float(t) { return .float(d) }
        return dateOrTime(t)
    }

    /// Digits (of `radix`) with single underscores between them.
    private static func digits(_ t: ArraySlice<UInt8>, radix: Int) -> [UInt8]? {
        guard let first = t.first, let last = t.last, first != .underscore, last != .underscore else { return nil }
        var out: [UInt8] = []
        var previous: UInt8 = 0
        for b in t {
            if b == .underscore {
                if previous == .underscore { return nil }
            } else {
                guard let d = digitValue(b), Int(d) < radix else { return nil }
                out.append(d)
            }
            previous = b
        }
        return out
    }

    private static func digitValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    static func integer(_ t: [UInt8]) -> Int? {
        var body = t[...]
        var negative = false
        var radix = 10
        if t.count > 2, t[0] == UInt8(ascii: "0") {
            switch t[1] {
            case UInt8(ascii: "x"): radix = 16
            case UInt8(ascii: "o"): radix = 8
            case UInt8(ascii: "b"): radix = 2
            default: break
            }
            if radix != 10 { body = t[2...] }
        }
        if radix == 10 {
            if let s = body.first, s == .plus || s == .minus { negative = s == .minus; body = body.dropFirst() }
            // No leading zeros: `0` alone, or a first digit that is not 0.
            if body.count > 1, body.first == UInt8(ascii: "0") { return nil }
        }
        guard let ds = digits(body, radix: radix) else { return nil }
        var value = 0
        for d in ds {
            let (m, o1) = value.multipliedReportingOverflow(by: radix)
            let (a, o2) = negative ? m.subtractingReportingOverflow(Int(d)) : m.addingReportingOverflow(Int(d))
            if o1 || o2 { return nil }
            value = a
        }
        return value
    }

    static func float(_ t: [UInt8]) -> Double? {
        var body = t[...]
        var text = ""
        if let s = body.first, s == .plus || s == .minus { text.append(s == .minus ? "-" : "+"); body = body.dropFirst() }
        let e = body.firstIndex { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        let mantissa = body[..<(e ?? body.endIndex)]
        let dot = mantissa.firstIndex(of: .dot)
        guard e != nil || dot != nil else { return nil }
        let whole = mantissa[..<(dot ?? mantissa.endIndex)]
        guard let w = digits(whole, radix: 10), !(w.count > 1 && w[0] == 0) else { return nil }
        text += String(decoding: w.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
        if let dot {
            guard let f = digits(mantissa[(dot + 1)...], radix: 10) else { return nil }
            text += "." + String(decoding: f.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
        }
        if let e {
            var exponent = body[(e + 1)...]
            text += "e"
            if let s = exponent.first, s == .plus || s == .minus { text.append(s == .minus ? "-" : "+"); exponent = exponent.dropFirst() }
            guard let x = digits(exponent, radix: 10) else { return nil }
            text += String(decoding: x.map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
        }
        return Double(text)
    }

    // MARK: Dates and times (RFC 3339, as TOML takes them)

    /// `YYYY-MM-DD`, a real day.
    static func isDate(_ t: [UInt8]) -> Bool { date(t[...]) }

    private static func number(_ t: ArraySlice<UInt8>) -> Int? {
        guard !t.isEmpty, t.allSatisfy(isDigit) else { return nil }
        return t.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    private static func date(_ t: ArraySlice<UInt8>) -> Bool {
        let s = t.startIndex
        guard t.count == 10, t[s + 4] == .minus, t[s + 7] == .minus,
              let y = number(t[s..<(s + 4)]), let m = number(t[(s + 5)..<(s + 7)]), let d = number(t[(s + 8)..<(s + 10)]),
              (1...12).contains(m), d >= 1 else { return false }
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return d <= days[m - 1]
    }

    /// `HH:MM:SS` with an optional fraction.
    private static func time(_ t: ArraySlice<UInt8>) -> Bool {
        let s = t.startIndex
        guard t.count >= 8, t[s + 2] == .colon, t[s + 5] == .colon,
              let h = number(t[s..<(s + 2)]), let m = number(t[(s + 3)..<(s + 5)]), let sec = number(t[(s + 6)..<(s + 8)]),
              h < 24, m < 60, sec <= 60 else { return false }
        let rest = t[(s + 8)...]
        if rest.isEmpty { return true }
        return rest.first == .dot && rest.count > 1 && rest.dropFirst().allSatisfy(isDigit)
    }

    /// `Z` or `±HH:MM`.
    private static func offset(_ t: ArraySlice<UInt8>) -> Bool {
        if t.count == 1, let z = t.first { return z == UInt8(ascii: "Z") || z == UInt8(ascii: "z") }
        let s = t.startIndex
        guard t.count == 6, t[s] == .plus || t[s] == .minus, t[s + 3] == .colon,
              let h = number(t[(s + 1)..<(s + 3)]), let m = number(t[(s + 4)..<(s + 6)]) else { return false }
        return h < 24 && m < 60
    }

    private static func dateOrTime(_ t: [UInt8]) -> TOMLValue? {
        let text = String(decoding: t, as: UTF8.self)
        if date(t[...]) { return .date(text) }
        if time(t[...]) { return .time(text) }
        guard t.count > 11, date(t[0..<10]) else { return nil }
        let separator = t[10]
        guard separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == .space else { return nil }
        var rest = t[11...]
        if let z = rest.lastIndex(where: { $0 == UInt8(ascii: "Z") || $0 == UInt8(ascii: "z") || $0 == .plus || $0 == .minus }) {
            guard offset(rest[z...]) else { return nil }
            rest = rest[..<z]
        }
        return time(rest) ? .dateTime(text) : nil
    }
}

fileprivate extension UInt8 {
    static let tab = UInt8(ascii: "\t")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let quote = UInt8(ascii: "\"")
    static let apostrophe = UInt8(ascii: "'")
    static let backslash = UInt8(ascii: "\\")
    static let hash = UInt8(ascii: "#")
    static let equals = UInt8(ascii: "=")
    static let dot = UInt8(ascii: ".")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let plus = UInt8(ascii: "+")
    static let minus = UInt8(ascii: "-")
    static let underscore = UInt8(ascii: "_")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
}
