import CLinuxShim
import Glibc
import KeyholdKit

/// A CLOCK_MONOTONIC timerfd armed for one absolute deadline (or a fixed interval), so the loop
/// wakes exactly when something is due and never otherwise.
public final class DeadlineTimer {
    public let fd: Int32
    private var armed: Timestamp?

    public init() throws(SystemError) {
        fd = timerfd_create(CLOCK_MONOTONIC, keyhold_tfd_flags)
        guard fd >= 0 else { throw SystemError("timerfd_create", errno) }
    }

    deinit { close(fd) }

    /// Arms the timer for `deadline` (absolute), or disarms it with nil. No system call when
    /// the deadline is unchanged.
    public func arm(at deadline: Timestamp?) {
        guard deadline != armed else { return }
        armed = deadline
        var spec = itimerspec()
        if let deadline { spec.it_value = MonotonicClock.timespec(deadline) }
        _ = timerfd_settime(fd, deadline == nil ? 0 : keyhold_tfd_timer_abstime, &spec, nil)
    }

    /// Fires every `microseconds`, starting one interval from now.
    public func repeatEvery(microseconds: Int64) {
        armed = nil
        var spec = itimerspec()
        let ts = Glibc.timespec(tv_sec: Int(microseconds / 1_000_000), tv_nsec: Int(microseconds % 1_000_000) * 1000)
        spec.it_value = ts
        spec.it_interval = ts
        _ = timerfd_settime(fd, 0, &spec, nil)
    }

    /// Consumes the expiry count after the fd became readable; the one-shot deadline is spent.
    public func acknowledge() {
        var count: UInt64 = 0
        _ = read(fd, &count, 8)
        armed = nil
    }
}
