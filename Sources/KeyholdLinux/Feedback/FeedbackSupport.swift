import CLinuxShim
import Glibc
import KeyholdKit

/// Where the feedback engines send their log lines: a level and a message. The default writes
/// through `Log`; tests pass a closure that collects them.
public typealias FeedbackLogger = @Sendable (Log.Level, String) -> Void

public enum FeedbackLog {
    /// `Log.write`, the journal-friendly stderr logger.
    public static let standard: FeedbackLogger = { level, message in Log.write(level, message) }
}

/// CLOCK_MONOTONIC in nanoseconds: the clock of input events, so "key event to first audio
/// frame" can be computed from the two timestamps.
public enum FeedbackClock {
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// A pthread mutex with one condition variable on CLOCK_MONOTONIC. Held only for a few
/// assignments, never across a system call that can wait.
final class FeedbackCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let cond = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        var attr = pthread_condattr_t()
        pthread_condattr_init(&attr)
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)
        pthread_cond_init(cond, &attr)
        pthread_condattr_destroy(&attr)
    }

    deinit {
        pthread_cond_destroy(cond)
        pthread_mutex_destroy(mutex)
        cond.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock(); defer { unlock() }
        return try body()
    }
    /// Waits for a broadcast (the mutex must be held).
    func wait() { pthread_cond_wait(cond, mutex) }
    /// Waits until the monotonic deadline (ns) at most; false on timeout (the mutex must be held).
    func wait(untilNanoseconds deadline: UInt64) -> Bool {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(cond, mutex, &ts) != ETIMEDOUT
    }
    func broadcast() { pthread_cond_broadcast(cond) }
}

/// A joinable pthread running one closure.
final class FeedbackThread {
    private var thread = pthread_t()
    private var joined = false

    private final class Body {
        let name: String
        let run: () -> Void
        init(name: String, _ run: @escaping () -> Void) { self.name = name; self.run = run }
    }

    /// Starts `body` on a new thread named `name` (at most 15 characters show); nil if the
    /// system refuses a thread.
    init?(name: String, _ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(name: name, body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            _ = keyhold_name_thread(body.name)
            body.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
    }

    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}

/// `~/x` with $HOME; other paths unchanged.
func expandingTilde(_ path: String) -> String {
    guard path == "~" || path.hasPrefix("~/"), let home = getenv("HOME") else { return path }
    return String(cString: home) + path.dropFirst()
}
