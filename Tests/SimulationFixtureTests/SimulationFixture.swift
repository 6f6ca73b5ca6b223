import Foundation

/// One case of `Tests/Fixtures/simulate` (the format is in that folder's README.md): a key
/// script, what `keyhold simulate` is given with it (a configuration file, `--locale`), and
/// what it must print and trace.
struct SimulationFixture {
    /// The file name, as failures name the case.
    var name: String
    /// The `#` lines at the top: what the case shows.
    var description: String
    var script: String
    var locale: String?
    /// The configuration file's TOML; nil for the embedded default.
    var configuration: String?
    /// The text `keyhold simulate` prints (without the newline after it).
    var text: String
    /// Keys still down on the output at the end, when the case says (`held:`).
    var held: [String]?
    /// `trace KIND:` sections: every trace line of that kind, in order, as `--trace` prints it.
    var traces: [(kind: String, lines: [String])]

    struct FormatError: Error, CustomStringConvertible {
        var file: String, line: Int, message: String
        var description: String { "\(file):\(line): \(message)" }
    }

    /// Every `*.txt` fixture in `directory`, by name.
    static func all(in directory: URL) throws -> [SimulationFixture] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".txt") }.sorted()
        return try names.map { name in
            try SimulationFixture(name: name, text: String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
        }
    }

    /// The folder of the fixtures, found from this file's place in the repository.
    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/simulate")
    }

    /// A block line is indented by this much; the indentation is not part of the value.
    static let indent = "    "

    init(name: String, text file: String) throws(FormatError) {
        self.name = name
        // Each field: its line number, the value on its own line, and the indented lines after it.
        var fields: [(name: String, line: Int, inline: String, block: [String])] = []
        var comments: [String] = []
        for (index, raw) in file.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(raw), number = index + 1
            if line.hasPrefix("#") {
                if fields.isEmpty { comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces)) }
            } else if line.hasPrefix(Self.indent) || line.trimmingCharacters(in: .whitespaces).isEmpty {
                guard !fields.isEmpty else {
                    if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                    throw FormatError(file: name, line: number, message: "an indented line before any field")
                }
                fields[fields.count - 1].block.append(String(line.dropFirst(min(line.count, Self.indent.count))))
            } else {
                guard let colon = line.firstIndex(of: ":") else {
                    throw FormatError(file: name, line: number, message: "expected 'field: value', a '#' comment or an indented line")
                }
                let field = line[..<colon].trimmingCharacters(in: .whitespaces)
                if fields.contains(where: { $0.name == field }) {
                    throw FormatError(file: name, line: number, message: "'\(field)' given twice")
                }
                fields.append((field, number, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces), []))
            }
        }
        description = comments.joined(separator: " ")

        var script: String?, text: String?
        traces = []
        for var field in fields {
            // Blank lines between fields belong to no block.
            while field.block.last?.trimmingCharacters(in: .whitespaces).isEmpty == true { field.block.removeLast() }
            func error(_ message: String) -> FormatError { FormatError(file: name, line: field.line, message: message) }
            switch field.name {
            case "script":
                script = ([field.inline] + field.block).joined(separator: " ").trimmingCharacters(in: .whitespaces)
            case "locale":
                locale = field.inline
            case "text":
                guard field.block.isEmpty else { throw error("text is one quoted line") }
                guard let unquoted = Self.unquote(field.inline) else {
                    throw error("text is a quoted string (\"é\"; escapes \\\\ \\\" \\n \\t \\u{5})")
                }
                text = unquoted
            case "held":
                held = field.inline == "none" ? [] : field.inline.split(separator: " ").map(String.init)
            case "config":
                guard field.inline.isEmpty else { throw error("the configuration goes on the indented lines after 'config:'") }
                configuration = field.block.joined(separator: "\n") + "\n"
            case let trace where trace.hasPrefix("trace "):
                guard field.inline.isEmpty else { throw error("trace lines go on the indented lines after '\(trace):'") }
                traces.append((String(trace.dropFirst(6)).trimmingCharacters(in: .whitespaces), field.block))
            default:
                throw error("unknown field '\(field.name)' (script, locale, config, text, held, trace KIND)")
            }
        }
        guard let script, !script.isEmpty else { throw FormatError(file: name, line: 1, message: "no script") }
        guard let text else { throw FormatError(file: name, line: 1, message: "no text") }
        self.script = script
        self.text = text
    }

    /// `"…"` with the escapes `\\`, `\"`, `\n`, `\t` and `\u{HEX}`; nil if it is not one.
    static func unquote(_ quoted: String) -> String? {
        guard quoted.count >= 2, quoted.first == "\"", quoted.last == "\"" else { return nil }
        var result = "", characters = quoted.dropFirst().dropLast()[...]
        while let c = characters.popFirst() {
            guard c == "\\" else {
                if c == "\"" { return nil }
                result.append(c); continue
            }
            switch characters.popFirst() {
            case "\\": result.append("\\")
            case "\"": result.append("\"")
            case "n": result.append("\n")
            case "t": result.append("\t")
            case "u":
                guard characters.popFirst() == "{", let close = characters.firstIndex(of: "}"),
                      let value = UInt32(characters[..<close], radix: 16), let scalar = Unicode.Scalar(value) else { return nil }
                result.unicodeScalars.append(scalar)
                characters = characters[characters.index(after: close)...]
            default: return nil
            }
        }
        return result
    }

    /// The text as a fixture writes it: quoted, with control characters and the escapes'
    /// own characters escaped, so a failure shows what differs.
    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case _ where scalar.properties.generalCategory == .control:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
