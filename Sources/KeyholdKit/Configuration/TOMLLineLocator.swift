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
        var scanner = TOMLScanner(text)
        var path: [TOMLPathComponent] = []
        scanner.skipSpaces()
        while !scanner.atEnd {
            if scanner.peek == "[" {
                scanner.advance()
                var digits = ""
                while let c = scanner.peek, ("0"..."9").contains(c) { digits.unicodeScalars.append(c); scanner.advance() }
                guard scanner.peek == "]", let i = Int(digits) else { return nil }
                scanner.advance()
                path.append(.index(i))
            } else {
                if !path.isEmpty {
                    guard scanner.peek == "." else { return nil }
                    scanner.advance()
                    scanner.skipSpaces()
                }
                guard let key = scanner.simpleKey() else { return nil }
                path.append(.key(key))
            }
            scanner.skipSpaces()
        }
        return path
    }

    static func isBare(_ key: String) -> Bool {
        !key.isEmpty && key.unicodeScalars.allSatisfy(TOMLScanner.isBareKeyScalar)
    }

    static func quoted(_ key: String) -> String {
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

/// Where each key of a TOML document is written. TOMLKit reports no positions for keys, so this
/// scans the text itself: table headers (`[a.b]`, `[[a]]`), `key = value` lines with dotted and
/// quoted keys, inline tables and arrays (each element gets its index), skipping comments and
/// every string form. It expects text that TOMLKit has already parsed; on malformed text it stops
/// early and never traps.
public struct TOMLLineLocator: Sendable {
    /// A 1-based line and column (columns count Unicode scalars).
    public struct Position: Hashable, Sendable, Comparable {
        public var line: Int
        public var column: Int
        public init(line: Int, column: Int) { self.line = line; self.column = column }
        public static func < (a: Position, b: Position) -> Bool { (a.line, a.column) < (b.line, b.column) }
    }

    /// The first place each path is written (a key, a table header, an array element).
    public private(set) var positions: [[TOMLPathComponent]: Position] = [:]

    public init(text: String) {
        var builder = Builder(text)
        builder.run()
        positions = builder.positions
    }

    /// Where a path is written, or nil when the document does not contain it.
    public func position(of path: [TOMLPathComponent]) -> Position? { positions[path] }

    /// The line of a path, or nil when the document does not contain it.
    public func line(of path: [TOMLPathComponent]) -> Int? { positions[path]?.line }

    /// The line of a dotted path (`gestures.long_press_ms`, `feedback.override[1].audio`).
    public func line(of path: String) -> Int? { TOMLPath.parse(path).flatMap { line(of: $0) } }

    /// The position of the path or, when it is absent, of its nearest written ancestor.
    public func nearestPosition(of path: [TOMLPathComponent]) -> Position? {
        var p = path
        while !p.isEmpty {
            if let pos = positions[p] { return pos }
            p.removeLast()
        }
        return nil
    }

    private struct Builder {
        var s: TOMLScanner
        var positions: [[TOMLPathComponent]: Position] = [:]
        /// Element counts of array tables (`[[x]]`), by their resolved path.
        var arrayTables: [[TOMLPathComponent]: Int] = [:]
        var currentTable: [TOMLPathComponent] = []

        init(_ text: String) { s = TOMLScanner(text) }

        mutating func record(_ path: [TOMLPathComponent], _ pos: Position) {
            if positions[path] == nil { positions[path] = pos }
        }

        mutating func run() {
            while !s.atEnd {
                let before = s.index
                line()
                if s.index == before { s.advance() } // never loop on unexpected input
            }
        }

        /// One logical line: blank, comment, header, or key/value.
        mutating func line() {
            s.skipSpaces()
            guard let c = s.peek else { return }
            switch c {
            case "\n": s.advance(); return
            case "#": s.skipComment()
            case "[": header()
            default: keyValue(in: currentTable)
            }
            s.skipToNextLine()
        }

        /// `[a.b]` or `[[a.b]]`.
        mutating func header() {
            let pos = s.position
            s.advance()
            let isArray = s.peek == "["
            if isArray { s.advance() }
            s.skipSpaces()
            guard let keys = dottedKey() else { return }
            // Resolve through array tables: `[a.b]` under `[[a]]` is `a[last].b`.
            var resolved: [TOMLPathComponent] = []
            for (i, key) in keys.enumerated() {
                resolved.append(.key(key))
                record(resolved, pos)
                let isLast = i == keys.count - 1
                if isLast && isArray {
                    let n = arrayTables[resolved, default: 0]
                    arrayTables[resolved] = n + 1
                    resolved.append(.index(n))
                    record(resolved, pos)
                } else if let n = arrayTables[resolved] {
                    resolved.append(.index(n - 1))
                }
            }
            currentTable = resolved
            s.skipSpaces()
            if s.peek == "]" { s.advance() }
            if isArray && s.peek == "]" { s.advance() }
        }

        /// `a."b".c = value`, recording every prefix of the key under `table`.
        mutating func keyValue(in table: [TOMLPathComponent]) {
            let pos = s.position
            guard let keys = dottedKey() else { return }
            var path = table
            for key in keys {
                path.append(.key(key))
                record(path, pos)
            }
            s.skipSpaces()
            guard s.peek == "=" else { return }
            s.advance()
            s.skipSpaces()
            value(at: path)
        }

        /// Simple keys joined by dots, with spaces allowed around the dots.
        mutating func dottedKey() -> [String]? {
            var keys: [String] = []
            while true {
                guard let key = s.simpleKey() else { return nil }
                keys.append(key)
                s.skipSpaces()
                guard s.peek == "." else { return keys }
                s.advance()
                s.skipSpaces()
            }
        }

        mutating func value(at path: [TOMLPathComponent]) {
            guard let c = s.peek else { return }
            switch c {
            case "\"", "'": s.skipString()
            case "[": array(at: path)
            case "{": inlineTable(at: path)
            default:
                // Numbers, booleans, dates (which may hold one space): up to a delimiter.
                while let c = s.peek, c != ",", c != "]", c != "}", c != "#", c != "\n" { s.advance() }
            }
        }

        mutating func array(at path: [TOMLPathComponent]) {
            s.advance() // [
            var index = 0
            while true {
                s.skipSpacesNewlinesAndComments()
                guard let c = s.peek else { return }
                if c == "]" { s.advance(); return }
                if c == "," { s.advance(); continue }
                let element = path + [.index(index)]
                record(element, s.position)
                let before = s.index
                value(at: element)
                if s.index == before { s.advance() }
                index += 1
            }
        }

        mutating func inlineTable(at path: [TOMLPathComponent]) {
            s.advance() // {
            while true {
                s.skipSpacesNewlinesAndComments()
                guard let c = s.peek else { return }
                if c == "}" { s.advance(); return }
                if c == "," { s.advance(); continue }
                let before = s.index
                keyValue(in: path)
                if s.index == before { s.advance() }
            }
        }
    }
}

/// A cursor over the scalars of a TOML text that tracks line and column.
struct TOMLScanner {
    let scalars: [Unicode.Scalar]
    private(set) var index = 0
    private(set) var line = 1
    private(set) var column = 1

    init(_ text: String) { scalars = Array(text.unicodeScalars) }

    var atEnd: Bool { index >= scalars.count }
    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }
    func peek(_ offset: Int) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }
    var position: TOMLLineLocator.Position { .init(line: line, column: column) }

    mutating func advance() {
        guard index < scalars.count else { return }
        if scalars[index] == "\n" { line += 1; column = 1 } else { column += 1 }
        index += 1
    }

    static func isBareKeyScalar(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-": return true
        default: return false
        }
    }

    mutating func skipSpaces() {
        while let c = peek, c == " " || c == "\t" || c == "\r" { advance() }
    }

    mutating func skipComment() {
        while let c = peek, c != "\n" { advance() }
    }

    mutating func skipSpacesNewlinesAndComments() {
        while let c = peek {
            if c == " " || c == "\t" || c == "\r" || c == "\n" { advance() }
            else if c == "#" { skipComment() }
            else { return }
        }
    }

    /// Past the rest of the current line (a trailing comment or stray text) and its newline.
    mutating func skipToNextLine() {
        while let c = peek {
            if c == "\n" { advance(); return }
            if c == "#" { skipComment(); continue }
            // A string that spans lines must not be mistaken for new lines of keys.
            if c == "\"" || c == "'" { let before = index; skipString(); if index == before { advance() }; continue }
            advance()
        }
    }

    /// A bare key, `"basic"` key or `'literal'` key; nil when none starts here.
    mutating func simpleKey() -> String? {
        guard let c = peek else { return nil }
        if c == "\"" || c == "'" {
            return readSingleLineString()
        }
        var key = ""
        while let c = peek, TOMLScanner.isBareKeyScalar(c) { key.unicodeScalars.append(c); advance() }
        return key.isEmpty ? nil : key
    }

    /// Skips any string form starting here: basic, literal, multi-line basic or literal.
    mutating func skipString() {
        guard let q = peek else { return }
        if peek(1) == q && peek(2) == q {
            advance(); advance(); advance()
            while let c = peek {
                if q == "\"" && c == "\\" { advance(); advance(); continue }
                if c == q && peek(1) == q && peek(2) == q {
                    advance(); advance(); advance()
                    // Up to two more quotes belong to the content (`""""` ends with one quote in it).
                    if peek == q { advance() }
                    if peek == q { advance() }
                    return
                }
                advance()
            }
        } else {
            _ = readSingleLineString()
        }
    }

    /// Reads `"..."` (with escapes) or `'...'`, returning the content.
    mutating func readSingleLineString() -> String? {
        guard let q = peek else { return nil }
        advance()
        var out = ""
        while let c = peek {
            if c == "\n" { return nil }
            advance()
            if c == q { return out }
            if q == "\"" && c == "\\" {
                guard let e = peek else { return nil }
                advance()
                switch e {
                case "b": out += "\u{8}"
                case "t": out += "\t"
                case "n": out += "\n"
                case "f": out += "\u{C}"
                case "r": out += "\r"
                case "e": out += "\u{1B}"
                case "\"": out += "\""
                case "\\": out += "\\"
                case "u", "U", "x":
                    let count = e == "U" ? 8 : e == "u" ? 4 : 2
                    var hex = ""
                    for _ in 0..<count { if let h = peek, h != q { hex.unicodeScalars.append(h); advance() } }
                    if let v = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(v) { out.unicodeScalars.append(scalar) }
                default: out.unicodeScalars.append(e)
                }
                continue
            }
            out.unicodeScalars.append(c)
        }
        return nil
    }
}
