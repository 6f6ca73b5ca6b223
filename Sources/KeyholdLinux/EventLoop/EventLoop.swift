import CLinuxShim
import Glibc

/// One epoll loop on one thread. Every source is a file descriptor with a handler; the loop
/// sleeps in epoll_wait with no timeout, so an idle daemon makes no wake-ups. Deadlines are
/// timerfds (see `DeadlineTimer`), signals a signalfd.
public final class EventLoop {
    public typealias Token = UInt64
    private let epfd: Int32
    private var handlers: [Token: () -> Void] = [:]
    private var fds: [Token: Int32] = [:]
    private var nextToken: Token = 1
    private var stopped = false

    public init() throws(SystemError) {
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw SystemError("epoll_create1", errno) }
    }

    deinit { close(epfd) }

    /// Watches `fd` for input; `handler` runs on the loop's thread when it is readable (or has
    /// an error or hang-up: the handler's read reports it). `priority`: wait for EPOLLPRI
    /// instead, as a sysfs attribute signals a change (a sysfs file is always readable).
    @discardableResult
    public func watch(_ fd: Int32, priority: Bool = false, handler: @escaping () -> Void) throws(SystemError) -> Token {
        let token = nextToken
        nextToken += 1
        let rc = keyhold_epoll_ctl(epfd, keyhold_epoll_ctl_add, fd, priority ? keyhold_epollpri : keyhold_epollin, token)
        guard rc == 0 else { throw SystemError("epoll_ctl(ADD)", errno) }
        handlers[token] = handler
        fds[token] = fd
        return token
    }

    /// Stops watching; call before closing the fd. Events already fetched for it are dropped.
    public func unwatch(_ token: Token) {
        guard let fd = fds.removeValue(forKey: token) else { return }
        handlers[token] = nil
        _ = keyhold_epoll_ctl(epfd, keyhold_epoll_ctl_del, fd, 0, 0)
    }

    /// Makes `run` return after the current batch.
    public func stop() { stopped = true }

    /// Dispatches events until `stop()`; `afterBatch` runs after every batch of ready fds
    /// (the daemon re-arms its deadline timer there).
    public func run(afterBatch: () -> Void) throws(SystemError) {
        stopped = false
        let capacity = 32
        var ready = [Token](repeating: 0, count: capacity)
        while !stopped {
            let n = keyhold_epoll_wait(epfd, &ready, nil, Int32(capacity), -1)
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("epoll_wait", errno)
            }
            for token in ready.prefix(Int(n)) {
                // A handler may have unwatched a later token of this batch.
                handlers[token]?()
                if stopped { break }
            }
            afterBatch()
        }
    }
}

/// A failed system call, with its errno.
public struct SystemError: Error, CustomStringConvertible {
    public var call: String
    public var code: Int32
    public init(_ call: String, _ code: Int32) { self.call = call; self.code = code }
    public var description: String { "\(call): \(errorString(code))" }
}
