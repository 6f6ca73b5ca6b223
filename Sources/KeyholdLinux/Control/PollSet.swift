import CLinuxShim
import Glibc

/// A second epoll instance nested in the `EventLoop`: the loop watches only for input, but the
/// control server must wait for a slow client's socket to become writable and sd-bus asks for
/// POLLIN, POLLOUT or both. An epoll fd is itself readable when any fd in its set is ready, so
/// the loop watches this set's `fd` and the owner calls `ready()` from that handler. No polling:
/// a fd is in the set only while its owner waits for it.
final class PollSet {
    static let readable = keyhold_epollin    // = POLLIN
    static let writable = keyhold_epollout   // = POLLOUT

    let fd: Int32
    private var members: [Int32: UInt32] = [:]
    private let capacity = 64
    private var tokens: [UInt64]
    private var events: [UInt32]

    init() throws(SystemError) {
        fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw SystemError("epoll_create1", errno) }
        tokens = [UInt64](repeating: 0, count: capacity)
        events = [UInt32](repeating: 0, count: capacity)
    }

    deinit { close(fd) }

    func contains(_ member: Int32) -> Bool { members[member] != nil }

    /// Waits for `events` on `member` (replacing what it waited for); 0 removes it.
    func set(_ member: Int32, events: UInt32) {
        let current = members[member]
        if events == 0 {
            guard current != nil else { return }
            members[member] = nil
            _ = keyhold_epoll_ctl(fd, keyhold_epoll_ctl_del, member, 0, 0)
            return
        }
        guard current != events else { return }
        let op = current == nil ? keyhold_epoll_ctl_add : keyhold_epoll_ctl_mod
        let rc = keyhold_epoll_ctl(fd, op, member, events, UInt64(UInt32(bitPattern: member)))
        if rc == 0 { members[member] = events }
    }

    func remove(_ member: Int32) { set(member, events: 0) }

    /// The members ready now, with what they are ready for (never blocks).
    func ready() -> [(fd: Int32, events: UInt32)] {
        let n = keyhold_epoll_wait(fd, &tokens, &events, Int32(capacity), 0)
        guard n > 0 else { return [] }
        return (0..<Int(n)).map { (Int32(bitPattern: UInt32(truncatingIfNeeded: tokens[$0])), events[$0]) }
    }
}
