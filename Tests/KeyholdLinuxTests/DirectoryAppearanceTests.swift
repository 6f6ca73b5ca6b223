import Glibc
import KeyholdKit
@testable import KeyholdLinux
import XCTest

/// logind's seats directory made after the daemon started (a boot where the two start side by
/// side), with a temporary tree standing for /run: the loop hears of it once, however many levels
/// were missing, and not before.
final class DirectoryAppearanceTests: XCTestCase {
    private var root = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/keyhold-appearance-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw XCTSkip("mkdtemp failed") }
        root = String(cString: made)
    }

    override func tearDown() {
        for path in [root + "/systemd/seats", root + "/systemd", root + "/seats"] { rmdir(path); unlink(path) }
        rmdir(root)
    }

    /// Runs the loop until `done` says so, or `milliseconds` pass.
    private func run(_ loop: EventLoop, for milliseconds: Int, until done: @escaping () -> Bool = { false }) throws {
        let timer = try DeadlineTimer()
        timer.arm(at: MonotonicClock.now() + milliseconds)
        let token = try loop.watch(timer.fd) { loop.stop() }
        defer { loop.unwatch(token) }
        try loop.run { if done() { loop.stop() } }
    }

    func testADirectoryMadeLevelByLevelIsReportedOnceWhenItExists() throws {
        let loop = try EventLoop()
        var calls = 0
        let seats = root + "/systemd/seats"
        let appearance = DirectoryAppearance(seats, loop: loop) { calls += 1 }
        XCTAssertEqual(calls, 0)
        XCTAssertEqual(appearance.watched, root, "the nearest level that exists is watched")
        XCTAssertEqual(mkdir(root + "/systemd", 0o755), 0)
        try run(loop, for: 300)
        XCTAssertEqual(calls, 0, "a level above it is not it")
        XCTAssertEqual(appearance.watched, root + "/systemd", "the watch moved down a level")
        XCTAssertEqual(mkdir(seats, 0o755), 0)
        try run(loop, for: 2_000) { calls > 0 }
        XCTAssertEqual(calls, 1)
        XCTAssertNil(appearance.watched, "nothing is watched once it exists")
    }

    func testAnExistingDirectoryIsReportedAtOnce() throws {
        let loop = try EventLoop()
        var calls = 0
        let appearance = DirectoryAppearance(root, loop: loop) { calls += 1 }
        XCTAssertEqual(calls, 1)
        XCTAssertNil(appearance.watched)
    }

    func testAFileOfThatNameIsNotTheDirectory() throws {
        let loop = try EventLoop()
        var calls = 0
        let seats = root + "/seats"
        let appearance = DirectoryAppearance(seats, loop: loop) { calls += 1 }
        let fd = creat(seats, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        try run(loop, for: 300)
        XCTAssertEqual(calls, 0)
        XCTAssertEqual(appearance.watched, root)
    }
}
