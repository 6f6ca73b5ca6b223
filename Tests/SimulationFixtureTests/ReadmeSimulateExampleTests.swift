import Foundation
import XCTest

/// Every `$ keyhold simulate …` example of README.md, with the line it prints, is a fixture
/// with the same arguments and text, so the README cannot drift from what simulate does.
final class ReadmeSimulateExampleTests: XCTestCase {
    /// One example: its line in the README, its arguments and the line printed after it.
    struct Example {
        var line: Int
        var arguments: [String]
        var output: String
    }

    static var readme: URL {
        SimulationFixture.directory.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
    }

    static func examples(in readme: String) -> [Example] {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let prompt = "$ keyhold simulate "
        return lines.indices.compactMap { i in
            guard lines[i].hasPrefix(prompt), i + 1 < lines.count else { return nil }
            return Example(line: i + 1, arguments: shellWords(String(lines[i].dropFirst(prompt.count))), output: lines[i + 1])
        }
    }

    /// Words as a shell splits them: quotes group, a `#` starting a word begins a comment.
    static func shellWords(_ text: String) -> [String] {
        var words: [String] = [], word: String?, quote: Character?
        for c in text {
            if let q = quote {
                if c == q { quote = nil } else { word!.append(c) }
            } else if c == "'" || c == "\"" {
                quote = c; word = word ?? ""
            } else if c == " " || c == "\t" {
                if let w = word { words.append(w) }
                word = nil
            } else if c == "#" && word == nil {
                break
            } else {
                word = (word ?? "") + String(c)
            }
        }
        if let w = word { words.append(w) }
        return words
    }

    /// The fixture an example stands for: no configuration file (the README's examples use the
    /// default), the same `--locale` and script, the same text; `--trace` needs a traced case.
    static func matches(_ example: Example, _ fixture: SimulationFixture) -> Bool {
        func words(_ s: String) -> String { s.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        var arguments = example.arguments.map(words)
        let traced = arguments.contains("--trace")
        arguments.removeAll { $0 == "--trace" }
        var fixtureArguments = fixture.locale.map { ["--locale", $0] } ?? []
        fixtureArguments.append(words(fixture.script))
        return fixture.configuration == nil && arguments == fixtureArguments && example.output == fixture.text
            && (!traced || !fixture.traces.isEmpty)
    }

    func testEveryReadmeExampleIsAFixture() throws {
        let examples = Self.examples(in: try String(contentsOf: Self.readme, encoding: .utf8))
        XCTAssertGreaterThanOrEqual(examples.count, 4, "README.md's simulate examples were not found")
        let fixtures = try SimulationFixture.all(in: SimulationFixture.directory)
        for example in examples where !fixtures.contains(where: { Self.matches(example, $0) }) {
            XCTFail("README.md:\(example.line): `keyhold simulate \(example.arguments.map { $0.contains(" ") ? "'\($0)'" : $0 }.joined(separator: " "))` printing "
                    + "\(example.output) is no fixture of Tests/Fixtures/simulate with the same arguments and text")
        }
    }
}
