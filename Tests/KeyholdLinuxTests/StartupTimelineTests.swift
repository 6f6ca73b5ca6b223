import KeyholdKit
import KeyholdLinux
import XCTest

final class StartupTimelineTests: XCTestCase {
    /// The steps in the order they were marked, each in whole ms from the origin given; then
    /// forgotten, so a second daemon in the same process starts a timeline of its own.
    func testStepsInOrderFromTheOriginThenForgotten() {
        _ = StartupTimeline.takeSummary(from: nil)   // marks of a daemon another test started
        let origin = MonotonicClock.now().adding(microseconds: -250_000)
        StartupTimeline.mark("configuration")
        StartupTimeline.mark("layout")
        let summary = StartupTimeline.takeSummary(from: origin)
        let steps = summary?.split(separator: ",").map { $0.split(separator: " ") } ?? []
        XCTAssertEqual(steps.map { String($0.first ?? "") }, ["configuration", "layout"], summary ?? "nil")
        let ms = steps.compactMap { $0.last.flatMap { Int($0) } }
        XCTAssertEqual(ms.count, 2)
        XCTAssertTrue(ms.allSatisfy { $0 >= 250 && $0 < 60_000 }, "ms from an origin 250 ms back: \(ms)")
        XCTAssertLessThanOrEqual(ms[0], ms[1])
        XCTAssertNil(StartupTimeline.takeSummary(from: origin), "forgotten once told")
    }

    /// This process's start on the monotonic clock: before now, and not before the test run began
    /// (a misread /proc/self/stat field or clock gives seconds since boot or since 1970).
    func testProcessStartIsThisProcesssStart() throws {
        let start = try XCTUnwrap(StartupTimeline.processStart())
        let now = MonotonicClock.now()
        XCTAssertLessThanOrEqual(start, now.adding(microseconds: 10_000), "at most one clock tick after now")
        XCTAssertGreaterThan(start, now.adding(microseconds: -3_600_000_000), "within the last hour: \(now - start) ms ago")
    }
}
