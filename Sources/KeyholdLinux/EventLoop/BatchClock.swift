import Glibc
import KeyholdKit

/// CLOCK_MONOTONIC read at most once per wake-up of the event loop: what one batch handles
/// happens at one instant as far as timing goes (pacing and deadlines are in milliseconds), and
/// a forwarded key costs one clock read instead of one per use (a system call where the clock
/// source has no vDSO, as in a QEMU guest).
///
/// `batchTime()`, the output queue's clock, need not read the clock when the batch holds a key
/// event: it is the kernel's stamp of that event, earlier than a reading only by the time the
/// daemon took to wake up for it (microseconds; pacing is in milliseconds). So no clock read
/// comes before a typed key is written.
public final class BatchClock: TimeSource {
    private var cached: Timestamp?
    /// The latest key event stamp of this batch.
    private var eventTime: Timestamp?
    /// The latest time handed out: neither reading goes back behind it.
    private var latest = Timestamp.zero
    public init() {}

    /// Now, read once per batch: for what must not come before the true time (a grab's stamp,
    /// the deadline timer).
    public func now() -> Timestamp {
        if let cached { return cached }
        let now = max(MonotonicClock.now(), latest)
        cached = now
        latest = now
        return now
    }

    /// A moment of this batch that has passed: the batch's clock reading if it was read, else
    /// its latest key event's stamp (no system call), else a reading.
    public func batchTime() -> Timestamp {
        if let cached { return cached }
        guard let eventTime else { return now() }
        let time = max(eventTime, latest)
        latest = time
        return time
    }

    /// A key event stamped `time` is in this batch.
    public func noteEvent(at time: Timestamp) {
        if eventTime.map({ time > $0 }) ?? true { eventTime = time }
    }

    /// A new batch begins: the next `now()` reads the clock.
    public func newBatch() {
        cached = nil
        eventTime = nil
    }
}
