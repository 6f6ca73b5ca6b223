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
            for mismatch in fixture.mismatches(in: outcome) { XCTFail("\(fixture.name): \(mismatch)") }
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
}
