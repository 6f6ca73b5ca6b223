/// Sets one key of a TOML text the way a person would, keeping everything else as written
/// (comments, order, blank lines): the key's line in its table gets the new value; a key not
/// there gets a line at the end of its table; a table not there is added at the end. What
/// `keyhold set` writes into a user's own file.
public enum TOMLEdit {
    /// Why a text cannot be edited so.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// `text` with `path` (a table's keys, then the key: `gestures.long_press_ms`) set to `value`,
    /// a TOML value as written (`800`, `"frequent"`, `["pl", "de"]`). The result is parsed again
    /// and must hold the value there: a key written in a form this does not rewrite (a dotted key,
    /// an inline table, a value over several lines) is a failure, not a guess.
    public static func set(_ path: [String], to value: String, in text: String) throws(Failure) -> String {
        guard path.count >= 2, let key = path.last else { throw Failure(description: "a setting is a table and a key, as gestures.long_press_ms") }
        let table = Array(path.dropLast())
        let wanted: TOMLValue
        do { wanted = try valueOf(value) } catch { throw Failure(description: "'\(value)' is no TOML value: \(error)") }
        let line = TOMLPath.string([.key(key)]) + " = " + value
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }

        var inTable = false, tableFound = false, lastLineOfTable: Int?, replaced = false
        for i in lines.indices {
            let trimmed = lines[i].trimmingWhitespace
            if trimmed.hasPrefix("[") {
                inTable = header(trimmed) == table
                if inTable { tableFound = true; lastLineOfTable = i }
                continue
            }
            guard inTable, !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            lastLineOfTable = i
            if let equals = trimmed.firstIndex(of: "="),
               TOMLPath.parse(String(trimmed[..<equals]).trimmingWhitespace) == [.key(key)] {
                lines[i] = line
                replaced = true
                break
            }
        }
        if !replaced {
            if tableFound, let at = lastLineOfTable {
                lines.insert(line, at: at + 1)
            } else {
                if let last = lines.last, !last.trimmingWhitespace.isEmpty { lines.append("") }
                lines += ["[" + TOMLPath.string(table.map { .key($0) }) + "]", line]
            }
        }
        let edited = lines.joined(separator: "\n") + "\n"
        let document: TOMLDocument
        do { document = try TOMLDocument(text: edited) } catch {
            throw Failure(description: "\(TOMLPath.string(path.map { .key($0) })) is written in a form this cannot change (edit the file): \(error)")
        }
        guard let got = document.value(at: path), same(got, wanted) else {
            throw Failure(description: "\(TOMLPath.string(path.map { .key($0) })) is written in a form this cannot change (edit the file)")
        }
        return edited
    }

    /// `text` when it is a TOML value (`800`, `true`, `["pl"]`, `"frequent"`), else it as a TOML
    /// string: what a person typing a setting means by a word alone (`frequent`).
    public static func literal(_ text: String) -> String {
        (try? valueOf(text)) != nil ? text : TOMLPath.quoted(text)
    }

    /// The value `text` is, as TOML reads it on the right of `=`.
    static func valueOf(_ text: String) throws(TOMLSyntaxError) -> TOMLValue {
        try TOMLDocument(text: "v = " + text + "\n").root["v"]!
    }

    /// The keys of a `[table]` header line; nil for an array of tables or a malformed one.
    private static func header(_ line: String) -> [String]? {
        guard !line.hasPrefix("[["), let close = line.lastIndex(of: "]") else { return nil }
        let inside = line[line.index(after: line.startIndex)..<close]
        guard let path = TOMLPath.parse(String(inside).trimmingWhitespace) else { return nil }
        return path.compactMap { if case .key(let k) = $0 { return k } else { return nil } }
    }

    private static func same(_ a: TOMLValue, _ b: TOMLValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x == y
        case (.integer(let x), .integer(let y)): return x == y
        case (.float(let x), .float(let y)): return x == y
        case (.boolean(let x), .boolean(let y)): return x == y
        case (.array(let x), .array(let y)):
            return x.elements.count == y.elements.count && zip(x.elements, y.elements).allSatisfy { same($0, $1) }
        default: return false
        }
    }
}

extension TOMLDocument {
    /// The value at a path of keys, or nil.
    func value(at path: [String]) -> TOMLValue? {
        var value = TOMLValue.table(root)
        for key in path {
            guard let next = value.table?[key] else { return nil }
            value = next
        }
        return value
    }
}

private extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
