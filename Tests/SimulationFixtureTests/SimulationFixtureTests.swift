import Foundation
import XCTest

/// Runs every case of `Tests/Fixtures/simulate`: its text, its trace sections and what it says
/// is left held must be exactly what `keyhold simulate` gives.
final class SimulationFixtureTests: XCTestCase {
    func testEveryFixture() throws {
        let fixtures = try SimulationFixture.all(in: SimulationFixture.directory)
        XCTAssertFalse(fixtures.isEmpty, "no fixture in \(SimulationFixture.directory.path)")
        for fixture in fixtures {
            let outcome: SimulationFixture.Outcome
            do { outcome = try fixture.run() } catch {
                XCTFail("\(fixture.name): \(error)"); continue
            }
            if outcome.text != fixture.text {
                XCTFail("\(fixture.name): text: expected \(SimulationFixture.quote(fixture.text)), got \(SimulationFixture.quote(outcome.text))")
            }
            for (kind, expected) in fixture.traces {
                let got = outcome.lines(kind)
                if got != expected {
                    XCTFail("\(fixture.name): trace \(kind):\n  expected:\n\(Self.block(expected))\n  got:\n\(Self.block(got))")
                }
            }
            if let held = fixture.held, held != outcome.held {
                XCTFail("\(fixture.name): held: expected \(Self.keys(held)), got \(Self.keys(outcome.held))")
            }
        }
    }

    /// A fixture that breaks the format is named with its line, rather than skipped.
    func testFormatMistakesNameTheFileAndLine() {
        XCTAssertThrowsError(try SimulationFixture(name: "bad.txt", text: "script: d:e u:e\ntext: e\n")) { error in
            XCTAssertEqual("\(error)", "bad.txt:2: text is a quoted string (\"é\"; escapes \\\\ \\\" \\n \\t \\u{5})")
        }
        XCTAssertThrowsError(try SimulationFixture(name: "bad.txt", text: "script: d:e u:e\ntext: \"e\"\nexpect: e\n")) { error in
            XCTAssertEqual("\(error)", "bad.txt:3: unknown field 'expect' (script, locale, config, text, held, trace KIND)")
        }
    }

    static func block(_ lines: [String]) -> String {
        lines.isEmpty ? "    (none)" : lines.map { "    " + $0 }.joined(separator: "\n")
    }

    static func keys(_ keys: [String]) -> String { keys.isEmpty ? "none" : keys.joined(separator: " ") }
}
