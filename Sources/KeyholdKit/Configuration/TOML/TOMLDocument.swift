/// A parsed TOML document: its root table and where each key, table and array element is written,
/// so that configuration errors can name the line and column of what they are about.
public struct TOMLDocument: Sendable {
    /// A 1-based line and column (columns count Unicode scalars).
    public struct Position: Hashable, Sendable, Comparable {
        public var line: Int
        public var column: Int
        public init(line: Int, column: Int) { self.line = line; self.column = column }
        public static func < (a: Position, b: Position) -> Bool { (a.line, a.column) < (b.line, b.column) }
    }

    public let root: TOMLTable

    /// Parses TOML 1.0 text. Any text, of any bytes and size, gives a document or an error with
    /// its line and column: the parser never traps, and its time grows linearly with the text.
    public init(text: String) throws(TOMLSyntaxError) {
        var parser = TOMLParser(text)
        try parser.document()
        root = parser.root
    }

    /// Where a path is first written (a key, a table header, an array element), or nil when the
    /// document does not contain it.
    public func position(of path: [TOMLPathComponent]) -> Position? {
        let (found, depth) = walk(path)
        return depth == path.count ? found : nil
    }

    /// The line of a path, or nil when the document does not contain it.
    public func line(of path: [TOMLPathComponent]) -> Int? { position(of: path)?.line }

    /// The line of a dotted path (`gestures.long_press_ms`, `feedback.override[1].audio`).
    public func line(of path: String) -> Int? { TOMLPath.parse(path).flatMap { line(of: $0) } }

    /// The position of the path or, when it is absent, of its nearest written ancestor.
    public func nearestPosition(of path: [TOMLPathComponent]) -> Position? { walk(path).position }

    /// Follows the path as far as the document has it: the last position found, and how many
    /// components were found.
    private func walk(_ path: [TOMLPathComponent]) -> (position: Position?, depth: Int) {
        var value = TOMLValue.table(root)
        var position: Position?
        for (depth, component) in path.enumerated() {
            switch (component, value) {
            case (.key(let key), .table(let table)):
                guard let next = table[key], let at = table.position(of: key) else { return (position, depth) }
                (value, position) = (next, at)
            case (.index(let i), .array(let array)) where array.elements.indices.contains(i):
                (value, position) = (array.elements[i], array.positions[i])
            default:
                return (position, depth)
            }
        }
        return (position, path.count)
    }
}

/// Text that is not TOML, with the place the parser stopped.
public struct TOMLSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String
    public var description: String { "\(line):\(column): \(message)" }
}
