import CEvdev
import CLinuxShim
import Glibc

/// What Keyhold learns about one event node when looking for a rumble device.
public struct ForceFeedbackProbe: Hashable, Sendable {
    public var path: String
    public var name: String
    public var hasForceFeedback: Bool
    public var hasRumble: Bool
    /// EVIOCGEFFECTS: how many effects the device holds at once.
    public var maximumEffects: Int
    /// Opened read-write (needed to play effects).
    public var isWritable: Bool
    /// Why the node could not be opened at all.
    public var openError: String?
}

/// One opened event node.
final class ForceFeedbackDevice {
    let fd: Int32
    let probe: ForceFeedbackProbe

    private init(fd: Int32, probe: ForceFeedbackProbe) { self.fd = fd; self.probe = probe }
    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Opens read-write (read-only when that is refused, to still report what the node is).
    /// The probe always; the device when the node could be opened.
    static func open(_ path: String) -> (device: ForceFeedbackDevice?, probe: ForceFeedbackProbe) {
        var writable = true
        var fd = Glibc.open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS) {
            writable = false
            fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        }
        guard fd >= 0 else {
            return (nil, ForceFeedbackProbe(path: path, name: "", hasForceFeedback: false, hasRumble: false,
                                            maximumEffects: 0, isWritable: false, openError: errorString(errno)))
        }
        // libevdev reads the capability bitmaps (FF_RUMBLE is bit 80: past the first 64-bit word).
        var evdev: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &evdev)
        guard rc == 0, let evdev else {
            // Not an evdev node (libevdev's first ioctl fails): nothing that can rumble.
            Glibc.close(fd)
            return (nil, ForceFeedbackProbe(path: path, name: "", hasForceFeedback: false, hasRumble: false,
                                            maximumEffects: 0, isWritable: writable, openError: nil))
        }
        defer { libevdev_free(evdev) }   // the fd stays open: it is the device's
        let hasFF = libevdev_has_event_type(evdev, UInt32(EV_FF)) != 0
        let probe = ForceFeedbackProbe(path: path, name: libevdev_get_name(evdev).map { String(cString: $0) } ?? "",
                                       hasForceFeedback: hasFF,
                                       hasRumble: hasFF && libevdev_has_event_code(evdev, UInt32(EV_FF), UInt32(FF_RUMBLE)) != 0,
                                       maximumEffects: hasFF ? Int(max(keyhold_ff_effects_max(fd), 0)) : 0,
                                       isWritable: writable, openError: nil)
        return (ForceFeedbackDevice(fd: fd, probe: probe), probe)
    }

    /// EVIOCSFF of one rumble pulse: the kernel's effect id, or -errno. For a uinput device this
    /// waits for its driver process to answer, so it is only done at start.
    func upload(_ pulse: HapticPattern.Pulse) -> Int32 {
        keyhold_ff_upload_rumble(fd, pulse.durationMilliseconds, pulse.delayMilliseconds, pulse.strong, pulse.weak)
    }

    func remove(_ id: Int16) { _ = keyhold_ff_remove(fd, Int32(id)) }

    /// Starts effects: one write of EV_FF events (code = effect id, value 1). Never blocks: the
    /// kernel hands them to the driver. 0 or errno.
    func play(_ ids: [Int16]) -> Int32 {
        var events = ids.map { input_event(time: timeval(), type: UInt16(EV_FF), code: UInt16(bitPattern: $0), value: 1) }
        let size = MemoryLayout<input_event>.stride * events.count
        while true {
            let n = events.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, size) }
            if n == size { return 0 }
            if n < 0 && errno == EINTR { continue }
            return n < 0 ? errno : EIO
        }
    }

    /// The event nodes of `directory`, in numeric order.
    static func eventNodes(in directory: String) -> [String] {
        let names = (opendirPath(directory) ?? []).filter { $0.hasPrefix("event") }
        return names.sorted { (Int($0.dropFirst(5)) ?? .max, $0) < (Int($1.dropFirst(5)) ?? .max, $1) }
            .map { directory + "/" + $0 }
    }
}
