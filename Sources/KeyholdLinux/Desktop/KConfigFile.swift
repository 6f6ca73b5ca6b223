/// A KDE configuration file's text (KConfig's INI dialect: `[Group]` lines, `key=value` lines,
/// a key's flags or locale in brackets after it, `#` comments), read and changed one key at a
/// time. Every line this does not change stays as it was, byte for byte: other programs (KWin,
/// System Settings) write the same file.
public struct KConfigFile: Equatable, Sendable {
    public private(set) var lines: [String]

    public init(text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }   // the newline that ends the last line
    }

    public var text: String { lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n" }

    /// The value of `key` in `group` (nil: no such key; "" for an empty one), whitespace around
    /// it trimmed as KConfig trims it.
    public func value(group: String, key: String) -> String? {
        guard let index = keyLine(group: group, key: key), let equals = lines[index].firstIndex(of: "=") else { return nil }
        return Self.trimmed(lines[index][lines[index].index(after: equals)...])
    }

    /// Whether the file has a `[group]` line.
    public func hasGroup(_ group: String) -> Bool { groupRange(group) != nil }

    /// Sets `key` in `group`: its line replaced where it has one (that line returned), else added
    /// as the group's first key, the group added at the end where the file has none.
    @discardableResult
    public mutating func set(group: String, key: String, value: String) -> String? {
        set(group: group, key: key, line: "\(key)=\(value)")
    }

    /// `set` with the key's whole line as given (a line `set` replaced, put back).
    @discardableResult
    public mutating func set(group: String, key: String, line: String) -> String? {
        if let index = keyLine(group: group, key: key) {
            defer { lines[index] = line }
            return lines[index]
        } else if let range = groupRange(group) {
            lines.insert(line, at: range.lowerBound)
        } else {
            if let last = lines.last, !Self.trimmed(last[...]).isEmpty { lines.append("") }
            lines += ["[\(group)]", line]
        }
        return nil
    }

    /// Whether `set` would add `group` after a blank line of its own (the file's last line is not blank).
    public func addsBlankLineBefore(_ group: String) -> Bool {
        !hasGroup(group) && lines.last.map { !Self.trimmed($0[...]).isEmpty } ?? false
    }

    /// Removes `key` from `group`, and the group's line too where it then holds nothing
    /// (`removingEmptyGroup`: the group was added with the key), with the blank line before it
    /// (`andBlankLineBefore`: `set` put it there).
    public mutating func remove(group: String, key: String, removingEmptyGroup: Bool, andBlankLineBefore: Bool = false) {
        guard let index = keyLine(group: group, key: key) else { return }
        lines.remove(at: index)
        guard removingEmptyGroup, let range = groupRange(group),
              lines[range].allSatisfy({ Self.trimmed($0[...]).isEmpty }) else { return }
        let header = range.lowerBound - 1
        lines.removeSubrange(header..<range.upperBound)
        if andBlankLineBefore, header > 0, header == lines.count, Self.trimmed(lines[header - 1][...]).isEmpty { lines.removeLast() }
    }

    /// The lines after `[group]` up to the next group line.
    private func groupRange(_ group: String) -> Range<Int>? {
        guard let header = lines.firstIndex(where: { Self.trimmed($0[...]) == "[\(group)]" }) else { return nil }
        let end = lines[(header + 1)...].firstIndex(where: { $0.hasPrefix("[") }) ?? lines.count
        return (header + 1)..<end
    }

    private func keyLine(group: String, key: String) -> Int? {
        groupRange(group)?.first { index in
            let line = lines[index]
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { return false }
            var name = Self.trimmed(line[..<equals])
            if let bracket = name.firstIndex(of: "[") { name = Self.trimmed(name[..<bracket]) }   // key[$e], key[de]
            return name == key
        }
    }

    private static func trimmed(_ text: Substring) -> String {
        String(text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
