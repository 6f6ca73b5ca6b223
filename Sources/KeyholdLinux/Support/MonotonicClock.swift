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
