import CLinuxShim
import Glibc
import KeyholdKit

/// CLOCK_MONOTONIC in nanoseconds: the clock of input events, so "key event to first audio
/// frame" can be computed from the two timestamps.
public enum FeedbackClock {
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
