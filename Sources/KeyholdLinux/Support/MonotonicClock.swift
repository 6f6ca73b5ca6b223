import Glibc
import KeyholdKit

/// CLOCK_MONOTONIC, the clock of every device (libevdev_set_clock_id) and of the deadline timer.
public enum MonotonicClock {
    public static func now() -> Timestamp {
        var ts = Glibc.timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Timestamp(microseconds: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
    }

    static func timestamp(_ tv: timeval) -> Timestamp {
        Timestamp(microseconds: Int64(tv.tv_sec) * 1_000_000 + Int64(tv.tv_usec))
    }

    static func timespec(_ t: Timestamp) -> Glibc.timespec {
        let us = max(t.microseconds, 1)   // 0 would disarm a timerfd
        return Glibc.timespec(tv_sec: Int(us / 1_000_000), tv_nsec: Int(us % 1_000_000) * 1000)
    }
}

/// CLOCK_MONOTONIC read at most once per wake-up of the event loop: what one batch handles
/// happens at one instant as far as timing goes (pacing and deadlines are in milliseconds), and
/// a forwarded key costs one clock read instead of one per use (a system call where the clock
/// source has no vDSO, as in a QEMU guest).
public final class BatchClock: TimeSource {
    private var cached: Timestamp?
    public init() {}
    public func now() -> Timestamp {
        if let cached { return cached }
        let now = MonotonicClock.now()
        cached = now
        return now
    }
    /// A new batch begins: the next `now()` reads the clock.
    public func newBatch() { cached = nil }
}
