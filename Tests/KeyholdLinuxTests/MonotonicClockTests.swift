import KeyholdKit
import KeyholdLinux
import XCTest

final class MonotonicClockTests: XCTestCase {
    /// Event times and deadlines share CLOCK_MONOTONIC: it must never go back.
    func testNeverGoesBackwards() {
        var previous = MonotonicClock.now()
        for _ in 0..<10_000 {
            let t = MonotonicClock.now()
            XCTAssertGreaterThanOrEqual(t, previous)
            previous = t
        }
        XCTAssertGreaterThan(previous.microseconds, 0)
    }
}
