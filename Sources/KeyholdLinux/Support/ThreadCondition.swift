import CLinuxShim
import Glibc
import KeyholdKit

/// A pthread mutex with one condition variable on CLOCK_MONOTONIC, for a worker thread and the
/// loop that hands it work (feedback, keymaps). Held only for a few assignments, never across a
/// system call that can wait.
final class ThreadCondition: @unchecked Sendable {
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
