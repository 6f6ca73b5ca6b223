import Glibc

/// sd_notify(3) without libsystemd: READY=1, RELOADING=1, STOPPING=1 and WATCHDOG=1 sent as
/// datagrams to $NOTIFY_SOCKET. Does nothing when not started by systemd with Type=notify.
public final class SystemdNotifier {
    private let socketPath: String?
    private var fd: Int32 = -1
    /// Half of $WATCHDOG_USEC when the service has a watchdog for this process, else nil.
    public let watchdogInterval: Int64?

    public init() {
        let env = { (name: String) -> String? in getenv(name).map { String(cString: $0) } }
        socketPath = env("NOTIFY_SOCKET").flatMap { $0.isEmpty ? nil : $0 }
        if let usec = env("WATCHDOG_USEC").flatMap({ Int64($0) }), usec > 0,
           env("WATCHDOG_PID").flatMap({ Int32($0) }).map({ $0 == getpid() }) ?? true {
            watchdogInterval = usec / 2
        } else {
            watchdogInterval = nil
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    public var isActive: Bool { socketPath != nil }

    public func notify(_ state: String) {
        guard let path = socketPath else { return }
        if fd < 0 {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return }
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }   // abstract namespace
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        let message = Array(state.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), sa, length) }
            }
        }
    }
}
