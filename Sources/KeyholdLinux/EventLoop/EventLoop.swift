import CLinuxShim
import Glibc

/// One epoll loop on one thread. Every source is a file descriptor with a handler and what it
/// waits for (input, room to write, or an urgent sysfs change); the loop sleeps in epoll_wait with
/// no timeout, so an idle daemon makes no wake-ups. Deadlines are timerfds (see `DeadlineTimer`),
/// signals a signalfd, and work that waits for the end of a batch is queued with `afterBatch`.
public final class EventLoop: FileWatcher {
    public typealias Token = WatchToken

    /// What a descriptor waits for, and what it is ready for.
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let readable = Events(rawValue: keyhold_epollin)
        public static let writable = Events(rawValue: keyhold_epollout)
        /// EPOLLPRI: a sysfs attribute signals a change this way (the file is always readable).
        public static let priority = Events(rawValue: keyhold_epollpri)
        public static let error = Events(rawValue: keyhold_epollerr)
        public static let hangUp = Events(rawValue: keyhold_epollhup)
    }

    private struct Watch {
        var fd: Int32
        var events: Events
        var handler: Handler
    }

    private enum Handler {
        case events((Events) -> Void)
        /// Input only, as most watches: called as given (not wrapped in a second closure).
        case input(() -> Void)
    }

    private let epfd: Int32
    /// Watches by slot; a token is the slot plus a generation above bit 32, so a token that was
    /// unwatched and whose slot was reused finds nothing.
    private var slots: [(generation: UInt32, watch: Watch?)] = []
    private var freeSlots: [Int] = []
    private var stopped = false
    private var deferred: [() -> Void] = []
    /// Runs each time the loop wakes up with ready descriptors, before their handlers (the
    /// daemon starts a new `BatchClock` batch).
    public var onWake: (() -> Void)?

    public init() throws(SystemError) {
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw SystemError("epoll_create1", errno) }
    }

    deinit { close(epfd) }

    /// Watches `fd` for `events`; `handler` runs on the loop's thread with what it is ready for.
    /// An error or hang-up is always reported (the handler's read or write then says which).
    @discardableResult
    public func watch(_ fd: Int32, for events: Events, handler: @escaping (Events) -> Void) throws(SystemError) -> Token {
        try add(fd, for: events, .events(handler))
    }

    /// Watches `fd` for input.
    @discardableResult
    public func watch(_ fd: Int32, handler: @escaping () -> Void) throws(SystemError) -> Token {
        try add(fd, for: .readable, .input(handler))
    }

    private func add(_ fd: Int32, for events: Events, _ handler: Handler) throws(SystemError) -> Token {
        let slot = freeSlots.popLast() ?? { slots.append((0, nil)); return slots.count - 1 }()
        let token = Token(slots[slot].generation) << 32 | Token(slot)
        guard keyhold_epoll_ctl(epfd, keyhold_epoll_ctl_add, fd, events.rawValue, token) == 0 else {
            let e = errno
            freeSlots.append(slot)
            throw SystemError("epoll_ctl(ADD)", e)
        }
        slots[slot].watch = Watch(fd: fd, events: events, handler: handler)
        return token
    }

    /// Changes what a watched descriptor waits for (no system call when it is unchanged).
    public func change(_ token: Token, to events: Events) {
        guard let slot = slot(of: token), let watch = slots[slot].watch, watch.events != events else { return }
        if keyhold_epoll_ctl(epfd, keyhold_epoll_ctl_mod, watch.fd, events.rawValue, token) == 0 {
            slots[slot].watch?.events = events
        }
    }

    /// Stops watching; call before closing the fd. Events already fetched for it are dropped.
    public func unwatch(_ token: Token) {
        guard let slot = slot(of: token), let watch = slots[slot].watch else { return }
        _ = keyhold_epoll_ctl(epfd, keyhold_epoll_ctl_del, watch.fd, 0, 0)
        slots[slot].watch = nil
        slots[slot].generation &+= 1
        freeSlots.append(slot)
    }

    /// Runs `work` once, after the current batch of ready descriptors (and after the batch hook
    /// `run` was given): a flush that can wait until the keys are written. Queued before `run`,
    /// it runs in the first turn, after what is ready then, without waiting for an event. Queued
    /// by such work, it runs in the next turn, after what is ready by then: a start made of
    /// steps lets a key pressed during one through before the next.
    public func afterBatch(_ work: @escaping () -> Void) { deferred.append(work) }

    /// Makes `run` return after the current batch.
    public func stop() { stopped = true }

    /// Dispatches events until `stop()`; `batchEnd` runs after every batch of ready fds
    /// (the daemon writes its output and re-arms its deadline timer there), then `afterBatch`
    /// work, then `batchEnd` again when there was any: what that work changed (a companion's
    /// answer lets the output queue go on) is written and its deadline armed in the same turn.
    public func run(batchEnd: () -> Void) throws(SystemError) {
        stopped = false
        let capacity = 32
        var tokens = [Token](repeating: 0, count: capacity)
        var ready = [UInt32](repeating: 0, count: capacity)
        deferred.reserveCapacity(8)
        while !stopped {
            // Work queued before `run` (the rest of a start) waits for nothing; after it has
            // run, `deferred` is empty here and the loop sleeps until an event.
            let n = keyhold_epoll_wait(epfd, &tokens, &ready, Int32(capacity), deferred.isEmpty ? -1 : 0)
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("epoll_wait", errno)
            }
            onWake?()
            for i in 0..<Int(n) {
                // A handler may have unwatched a later token of this batch: its slot is empty or
                // belongs to a newer generation.
                guard let slot = slot(of: tokens[i]), let watch = slots[slot].watch else { continue }
                switch watch.handler {
                case .input(let handler): handler()
                case .events(let handler): handler(Events(rawValue: ready[i]))
                }
                if stopped { break }
            }
            batchEnd()
            if runDeferred() { batchEnd() }
        }
        while !deferred.isEmpty { runDeferred() }
    }

    /// Runs the work queued so far; what it queues waits for the next turn. False when there was none.
    @discardableResult
    private func runDeferred() -> Bool {
        let count = deferred.count
        guard count > 0 else { return false }
        for i in 0..<count { deferred[i]() }
        deferred.removeFirst(count)
        return true
    }

    private func slot(of token: Token) -> Int? {
        let slot = Int(token & 0xffff_ffff)
        guard slot < slots.count, slots[slot].generation == UInt32(token >> 32) else { return nil }
        return slot
    }
}
