import Glibc
import KeyholdKit

/// Where a start's time goes before keys flow: the daemon marks each step (its `main`, the
/// configuration read, the layout compiled, the virtual keyboard made, the keyboards grabbed,
/// the session looked at, the loop about to turn) and logs them in one line, in milliseconds
/// from the process's start as the kernel counts it (clock ticks: ±10 ms). The benchmark prints
/// it beside exec → first key.
public enum StartupTimeline {
    nonisolated(unsafe) private static var marks: [(step: String, at: Timestamp)] = []

    /// Notes that `step` is done now.
    public static func mark(_ step: String) { marks.append((step, MonotonicClock.now())) }

    /// "arguments 41, configuration 44, …" (ms from `start`, else from the first mark), or nil
    /// before any mark; the marks are then forgotten (a process may start more than one daemon).
    public static func takeSummary(from start: Timestamp?) -> String? {
        defer { marks.removeAll() }
        guard !marks.isEmpty, let origin = start ?? marks.first?.at else { return nil }
        return marks.map { "\($0.step) \(Int(($0.at - origin).rounded()))" }.joined(separator: ", ")
    }

    /// When this process started, on the monotonic clock: /proc/self/stat's start time (clock
    /// ticks since boot, on the boot-time clock, which runs on through suspend) less the time the
    /// machine has slept; nil where /proc says nothing.
    public static func processStart() -> Timestamp? {
        guard let stat = readTextFile("/proc/self/stat"), let end = stat.lastIndex(of: ")") else { return nil }
        // After the command name in parentheses: field 3 (state) onwards; the start time is field 22.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 19, let ticks = Int64(fields[19]) else { return nil }
        let hz = Int64(sysconf(Int32(_SC_CLK_TCK)))
        guard hz > 0 else { return nil }
        var boot = timespec(), mono = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        clock_gettime(CLOCK_MONOTONIC, &mono)
        let slept = (Int64(boot.tv_sec) - Int64(mono.tv_sec)) * 1_000_000 + (Int64(boot.tv_nsec) - Int64(mono.tv_nsec)) / 1000
        return Timestamp(microseconds: ticks * 1_000_000 / hz - slept)
    }
}
