import CLinuxShim
import CUdev
import Glibc

/// Tells the daemon when /dev/input/event* nodes come and go. With udevd running (the normal
/// case) a libudev monitor on subsystem "input" is used, so a node is reported once udev has
/// applied its rules (permissions, tags). Without udevd (initramfs, a bare test guest), udev
/// events never arrive: inotify on /dev/input (devtmpfs) is used instead.
public final class HotplugMonitor: HotplugSource {
    public enum Mode: String { case udev = "libudev monitor", inotify = "inotify on /dev/input" }

    public let mode: Mode
    public let fd: Int32
    private var udev: OpaquePointer?
    private var monitor: OpaquePointer?
    private let directory: String

    /// `preferUdev`: use libudev when udevd runs (its control socket exists).
    public init(directory: String = "/dev/input", preferUdev: Bool = true) throws(SystemError) {
        self.directory = directory
        if preferUdev, fileExists("/run/udev/control"), let udev = udev_new() {
            if let monitor = udev_monitor_new_from_netlink(udev, "udev"),
               udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil) >= 0,
               udev_monitor_enable_receiving(monitor) >= 0 {
                let fd = udev_monitor_get_fd(monitor)
                // The monitor's fd is already non-blocking and close-on-exec (libudev sets both).
                self.udev = udev
                self.monitor = monitor
                self.fd = fd
                mode = .udev
                return
            }
            udev_unref(udev)
        }
        let fd = inotify_init1(keyhold_in_flags)
        guard fd >= 0 else { throw SystemError("inotify_init1", errno) }
        let mask = keyhold_in_create | keyhold_in_attrib | keyhold_in_delete | keyhold_in_moved_to
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            let e = errno
            close(fd)
            throw SystemError("inotify_add_watch \(directory)", e)
        }
        self.fd = fd
        mode = .inotify
    }

    public var summary: String { mode.rawValue + (mode == .inotify ? " (udevd is not running)" : "") }

    deinit {
        if let monitor { udev_monitor_unref(monitor) } else { close(fd) }
        if let udev { udev_unref(udev) }
    }

    /// Reads what happened since the last call. Attribute changes count as `added` (a node that
    /// could not be opened may be readable now); the daemon ignores nodes it already has.
    public func changes() -> [HotplugChange] {
        var result: [HotplugChange] = []
        if let monitor {
            while let device = udev_monitor_receive_device(monitor) {
                defer { udev_device_unref(device) }
                guard let node = udev_device_get_devnode(device).map({ String(cString: $0) }),
                      HotplugMonitor.isEventNode(node) else { continue }
                let action = udev_device_get_action(device).map { String(cString: $0) } ?? ""
                switch action {
                case "add", "change", "bind": result.append(.added(node))
                case "remove": result.append(.removed(node))
                default: break
                }
            }
            return result
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            var offset = 0
            let header = Int(keyhold_inotify_header_size)
            while offset + header <= n {
                var mask: UInt32 = 0, nameLength: UInt32 = 0
                buffer.withUnsafeBytes { keyhold_inotify_event($0.baseAddress! + offset, &mask, &nameLength) }
                let length = Int(nameLength)
                let start = offset + header
                let name = String(decoding: buffer[start..<min(start + length, n)].prefix(while: { $0 != 0 }), as: UTF8.self)
                offset = start + length
                if mask & keyhold_in_q_overflow != 0 {
                    // Lost events: report every node as present; the daemon reconciles.
                    for node in DevicePolicy.eventNodes(in: directory) { result.append(.added(node)) }
                    continue
                }
                let node = directory + "/" + name
                guard HotplugMonitor.isEventNode(node) else { continue }
                if mask & keyhold_in_delete != 0 { result.append(.removed(node)) } else { result.append(.added(node)) }
            }
        }
        return result
    }

    static func isEventNode(_ path: String) -> Bool {
        guard let slash = path.lastIndex(of: "/") else { return false }
        let base = path[path.index(after: slash)...]
        return base.hasPrefix("event") && Int(base.dropFirst(5)) != nil
    }
}
