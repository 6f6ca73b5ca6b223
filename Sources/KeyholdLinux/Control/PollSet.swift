import Glibc

/// A second epoll instance nested in the `EventLoop`: the loop watches only for input, but the
/// control server must wait for a slow client's socket to become writable and sd-bus asks for
/// POLLIN, POLLOUT or both. An epoll fd is itself readable when any fd in its set is ready, so
/// the loop watches this set's `fd` and the owner calls `ready()` from that handler. No polling:
/// a fd is in the set only while its owner waits for it.
final class PollSet {
    static let readable: UInt32 = 0x001   // EPOLLIN  (= POLLIN)
    static let writable: UInt32 = 0x004   // EPOLLOUT (= POLLOUT)
    static let epollCtlMod: Int32 = 3

    let fd: Int32
    private var members: [Int32: UInt32] = [:]
    private var buffer: [UInt8]
    private let capacity = 64

    init() throws(SystemError) {
        fd = LinuxCalls.epollCreate1(LinuxCalls.cloexec)
        guard fd >= 0 else { throw SystemError("epoll_create1", errno) }
        buffer = [UInt8](repeating: 0, count: LinuxCalls.epollEventSize * capacity)
    }

    deinit { close(fd) }

    func contains(_ member: Int32) -> Bool { members[member] != nil }

    /// Waits for `events` on `member` (replacing what it waited for); 0 removes it.
    func set(_ member: Int32, events: UInt32) {
        let current = members[member]
        if events == 0 {
            guard current != nil else { return }
            members[member] = nil
            _ = LinuxCalls.epollCtl(fd, LinuxCalls.epollCtlDel, member, nil)
            return
        }
        guard current != events else { return }
        var event = [UInt8](repeating: 0, count: LinuxCalls.epollEventSize)
        event.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: UInt64(UInt32(bitPattern: member)), toByteOffset: LinuxCalls.epollDataOffset, as: UInt64.self)
        }
        let op = current == nil ? LinuxCalls.epollCtlAdd : PollSet.epollCtlMod
        let rc = event.withUnsafeMutableBytes { LinuxCalls.epollCtl(fd, op, member, $0.baseAddress) }
        if rc == 0 { members[member] = events }
    }

    func remove(_ member: Int32) { set(member, events: 0) }

    /// The members ready now, with what they are ready for (never blocks).
    func ready() -> [(fd: Int32, events: UInt32)] {
        let n = buffer.withUnsafeMutableBytes { LinuxCalls.epollWait(fd, $0.baseAddress, Int32(capacity), 0) }
        guard n > 0 else { return [] }
        var result: [(fd: Int32, events: UInt32)] = []
        result.reserveCapacity(Int(n))
        buffer.withUnsafeBytes { raw in
            for i in 0..<Int(n) {
                let base = i * LinuxCalls.epollEventSize
                let events = raw.loadUnaligned(fromByteOffset: base, as: UInt32.self)
                let data = raw.loadUnaligned(fromByteOffset: base + LinuxCalls.epollDataOffset, as: UInt64.self)
                result.append((Int32(bitPattern: UInt32(truncatingIfNeeded: data)), events))
            }
        }
        return result
    }
}
