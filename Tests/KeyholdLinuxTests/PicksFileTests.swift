import Foundation
import Glibc
import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// The companion's file of the user's callout picks (`[callouts] order = "frequent"`).
final class PicksFileTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/keyhold-picks-XXXXXX".utf8CString)
        guard let dir = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { throw XCTSkip("mkdtemp failed") }
        directory = String(cString: dir)
    }

    override func tearDown() {
        if !directory.isEmpty { _ = try? FileManager.default.removeItem(atPath: directory) }
    }

    func testThePathFollowsXDG() {
        XCTAssertEqual(PicksFile.path { ["HOME": "/home/ana"][$0] }, "/home/ana/.local/state/keyhold/picks")
        XCTAssertEqual(PicksFile.path { ["HOME": "/home/ana", "XDG_STATE_HOME": "/st"][$0] }, "/st/keyhold/picks")
        XCTAssertEqual(PicksFile.path { ["HOME": "/home/ana", "XDG_STATE_HOME": "relative"][$0] }, "/home/ana/.local/state/keyhold/picks",
                       "a relative XDG directory is ignored, as the specification says")
        XCTAssertNil(PicksFile.path { _ in nil })
        XCTAssertEqual(PersonalSettings.path { ["HOME": "/home/ana"][$0] }, "/home/ana/.config/keyhold/config.toml")
        XCTAssertEqual(PersonalSettings.path { ["HOME": "/home/ana", "XDG_CONFIG_HOME": "/cfg"][$0] }, "/cfg/keyhold/config.toml")
        XCTAssertNil(PersonalSettings.path { ["HOME": "relative"][$0] })
    }

    /// Picks are written at once (its directory made, private), the most picked first; another
    /// writer's change (a second session's companion) is read before the next pick; a line that
    /// is not a count and a candidate is skipped; forgetting removes the file.
    func testPicksAreKeptReadAgainAndForgotten() throws {
        let path = directory + "/state/keyhold/picks"
        let file = PicksFile(path: path)
        file.refresh()
        XCTAssertTrue(file.picks.counts.isEmpty, "no file: no picks")
        try file.record("ê")
        try file.record("É")
        try file.record("é")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "2\té\n1\tê\n")
        var status = stat()
        XCTAssertEqual(stat(path, &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o600)
        XCTAssertEqual(stat(directory + "/state/keyhold", &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o700)

        let other = PicksFile(path: path)
        try other.record("ñ")
        try file.record("é")
        XCTAssertEqual(file.picks.counts, ["é": 3, "ê": 1, "ñ": 1], "the other companion's pick is kept")

        try "4\tß\nnonsense\n-2\tx\n\t\n7\n1\tß\n".write(toFile: path, atomically: false, encoding: .utf8)
        file.refresh()
        XCTAssertEqual(file.picks.counts, ["ß": 5])

        try other.forget()
        XCTAssertNotEqual(access(path, F_OK), 0)
        file.refresh()
        XCTAssertTrue(file.picks.counts.isEmpty, "forgotten by the other: read as gone")
        XCTAssertNoThrow(try file.forget(), "forgetting what is gone is no error")
    }
}
