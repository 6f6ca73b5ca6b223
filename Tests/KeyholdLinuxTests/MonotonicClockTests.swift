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

    /// The output queue's time in a batch with a key event is that event's stamp (no clock read
    /// before the key is written); a reading taken in the batch wins; time never goes back.
    func testBatchTimeIsTheKeyEventsStampUntilTheClockIsRead() {
        let clock = BatchClock()
        clock.newBatch()
        clock.noteEvent(at: .milliseconds(5))
        clock.noteEvent(at: .milliseconds(3))
        XCTAssertEqual(clock.batchTime(), .milliseconds(5), "the latest event stamp, not a reading")
        let reading = clock.now()
        XCTAssertGreaterThan(reading, .milliseconds(5), "a real CLOCK_MONOTONIC reading")
        XCTAssertEqual(clock.batchTime(), reading, "once read, the reading")

        clock.newBatch()
        clock.noteEvent(at: .milliseconds(7))
        XCTAssertEqual(clock.batchTime(), reading, "an older stamp does not take time back")
        clock.newBatch()
        let next = clock.batchTime()
        XCTAssertGreaterThanOrEqual(next, reading, "no key event: a reading")
        XCTAssertEqual(clock.now(), next, "read once per batch")
    }
}
