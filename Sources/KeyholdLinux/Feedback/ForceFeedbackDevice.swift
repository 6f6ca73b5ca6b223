import CEvdev
import Glibc

/// Capability bitmaps as EVIOCGBIT fills them: an array of C `unsigned long`, bit n in word
/// n / bits-per-long. FF_RUMBLE is bit 80, in the second 64-bit word: reading only the first
/// word (or shifting a 64-bit value by 80) misses it.
public enum EvdevBitmap {
    public static let evFF = 0x15
    public static let ffRumble = 0x50
    public static let ffMax = 0x7f

    public static func isSet(_ bit: Int, in words: [UInt]) -> Bool {
        guard bit >= 0 else { return false }
        let index = bit / UInt.bitWidth
        guard index < words.count else { return false }
        return words[index] & (UInt(1) << UInt(bit % UInt.bitWidth)) != 0
    }

    /// The same bitmap seen as bytes (little-endian `unsigned long`s: byte n / 8, bit n % 8).
    public static func isSet(_ bit: Int, inBytes bytes: [UInt8]) -> Bool {
        guard bit >= 0, bit / 8 < bytes.count else { return false }
        return bytes[bit / 8] & (1 << UInt8(bit % 8)) != 0
    }

    /// Words for `bits` bits.
    static func wordCount(bits: Int) -> Int { (bits + UInt.bitWidth - 1) / UInt.bitWidth }
}

/// The evdev ioctls Swift cannot spell (they are function-like macros): the generic _IOC
/// encoding of x86, arm and riscv (dir << 30 | size << 16 | type << 8 | nr).
enum EvdevIoctl {
    private static func ioc(_ dir: UInt, _ nr: UInt, _ size: Int) -> UInt {
        dir << 30 | UInt(size) << 16 | UInt(UInt8(ascii: "E")) << 8 | nr
    }
    private static let write: UInt = 1, read: UInt = 2
    static func getBit(_ type: Int, length: Int) -> UInt { ioc(read, 0x20 + UInt(type), length) }
    static func getName(length: Int) -> UInt { ioc(read, 0x06, length) }
    static let getEffects = ioc(read, 0x84, MemoryLayout<Int32>.size)
    static let uploadEffect = ioc(write, 0x80, MemoryLayout<ff_effect>.size)
    static let removeEffect = ioc(write, 0x81, MemoryLayout<Int32>.size)
}

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
        var types = [UInt](repeating: 0, count: EvdevBitmap.wordCount(bits: Int(EV_CNT)))
        var effects = [UInt](repeating: 0, count: EvdevBitmap.wordCount(bits: EvdevBitmap.ffMax + 1))
        _ = types.withUnsafeMutableBytes { ioctl(fd, EvdevIoctl.getBit(0, length: $0.count), $0.baseAddress!) }
        let hasFF = EvdevBitmap.isSet(EvdevBitmap.evFF, in: types)
        if hasFF {
            _ = effects.withUnsafeMutableBytes { ioctl(fd, EvdevIoctl.getBit(EvdevBitmap.evFF, length: $0.count), $0.baseAddress!) }
        }
        var maximum: Int32 = 0
        if hasFF { _ = ioctl(fd, EvdevIoctl.getEffects, &maximum) }
        var nameBytes = [CChar](repeating: 0, count: 256)
        _ = nameBytes.withUnsafeMutableBytes { ioctl(fd, EvdevIoctl.getName(length: $0.count - 1), $0.baseAddress!) }
        let name = String(decoding: nameBytes.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let probe = ForceFeedbackProbe(path: path, name: name, hasForceFeedback: hasFF,
                                       hasRumble: hasFF && EvdevBitmap.isSet(EvdevBitmap.ffRumble, in: effects),
                                       maximumEffects: Int(maximum), isWritable: writable, openError: nil)
        return (ForceFeedbackDevice(fd: fd, probe: probe), probe)
    }

    /// EVIOCSFF of one rumble pulse: the kernel's effect id, or -errno. For a uinput device this
    /// waits for its driver process to answer, so it is only done at start.
    func upload(_ pulse: HapticPattern.Pulse) -> Int32 {
        var effect = ff_effect()
        effect.type = UInt16(FF_RUMBLE)
        effect.id = -1
        effect.replay.length = pulse.durationMilliseconds
        effect.replay.delay = pulse.delayMilliseconds
        effect.u.rumble.strong_magnitude = pulse.strong
        effect.u.rumble.weak_magnitude = pulse.weak
        guard ioctl(fd, EvdevIoctl.uploadEffect, &effect) == 0 else { return -errno }
        return Int32(effect.id)
    }

    func remove(_ id: Int16) { _ = ioctl(fd, EvdevIoctl.removeEffect, Int32(id)) }

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
