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

/// SIGTERM, SIGINT and SIGHUP as a readable fd. The signals are blocked for the process so they
/// arrive only here (call before any other thread starts).
public final class SignalReader {
    public let fd: Int32

    public init(signals: [Int32]) throws(SystemError) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        guard pthread_sigmask(SIG_BLOCK, &set, nil) == 0 else { throw SystemError("pthread_sigmask", errno) }
        fd = signalfd(-1, &set, keyhold_sfd_flags)
        guard fd >= 0 else { throw SystemError("signalfd", errno) }
    }

    deinit { close(fd) }

    /// The signals that arrived since the last call, in order.
    public func pending() -> [Int32] {
        var result: [Int32] = []
        var info = [UInt8](repeating: 0, count: Int(keyhold_signalfd_info_size))
        while true {
            let n = info.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n == Int(keyhold_signalfd_info_size) else { break }
            result.append(Int32(bitPattern: info.withUnsafeBytes { keyhold_signalfd_signo($0.baseAddress) }))
        }
        return result
    }
}
