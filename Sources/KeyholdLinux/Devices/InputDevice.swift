import CEvdev
import Glibc
import KeyholdKit

/// One /dev/input/event* node opened through libevdev: identity, capabilities, grab, key state,
/// LEDs, and reading with SYN_DROPPED resync.
public final class InputDevice: KeyboardDevice {
    public let path: String
    public let fd: Int32
    let dev: OpaquePointer
    public let name: String
    public let phys: String
    public let vendor: UInt16
    public let product: UInt16
    public let bustype: UInt16
    /// Opened read-write, so LED values can be written (mirroring Caps Lock / Num Lock).
    public let isWritable: Bool
    public private(set) var isGrabbed = false

    public enum OpenError: Error, CustomStringConvertible {
        case open(Int32), libevdev(Int32)
        public var code: Int32 { switch self { case .open(let e), .libevdev(let e): return e } }
        public var description: String {
            switch self {
            case .open(let e): return errorString(e)
            case .libevdev(let e): return "libevdev: \(errorString(e))"
            }
        }
    }

    /// Opens the node non-blocking. Read-write when allowed (LEDs), else read-only: EVIOCGRAB
    /// needs only read access.
    public init(path: String) throws(OpenError) {
        self.path = path
        var writable = true
        var fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS) {
            writable = false
            fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        }
        guard fd >= 0 else { throw .open(errno) }
        var dev: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &dev)
        guard rc == 0, let dev else { close(fd); throw .libevdev(-rc) }
        self.fd = fd
        self.dev = dev
        self.isWritable = writable
        name = libevdev_get_name(dev).map { String(cString: $0) } ?? ""
        phys = libevdev_get_phys(dev).map { String(cString: $0) } ?? ""
        vendor = UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev))
        product = UInt16(truncatingIfNeeded: libevdev_get_id_product(dev))
        bustype = UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev))
    }

    deinit {
        if isGrabbed { _ = libevdev_grab(dev, LIBEVDEV_UNGRAB) }
        libevdev_free(dev)
        close(fd)
    }

    public var identity: DeviceIdentity {
        DeviceIdentity(path: path, name: name, vendor: vendor, product: product, bustype: bustype, phys: phys,
                       hasLettersAndSpace: hasLettersAndSpace, hasPointerAxes: hasPointerAxes)
    }

    public func hasKey(_ code: Int32) -> Bool {
        libevdev_has_event_code(dev, UInt32(EV_KEY), UInt32(code)) != 0
    }

    /// The keyboard heuristic: KEY_A..KEY_Z and KEY_SPACE.
    public var hasLettersAndSpace: Bool {
        let letters: [Int32] = [KEY_Q, KEY_W, KEY_E, KEY_R, KEY_T, KEY_Y, KEY_U, KEY_I, KEY_O, KEY_P, KEY_A, KEY_S, KEY_D,
                                KEY_F, KEY_G, KEY_H, KEY_J, KEY_K, KEY_L, KEY_Z, KEY_X, KEY_C, KEY_V, KEY_B, KEY_N, KEY_M]
        return letters.allSatisfy(hasKey) && hasKey(KEY_SPACE)
    }

    /// Relative or absolute axes: a keyboard with a built-in pointer.
    public var hasPointerAxes: Bool {
        libevdev_has_event_type(dev, UInt32(EV_REL)) != 0 || libevdev_has_event_type(dev, UInt32(EV_ABS)) != 0
    }

    /// Event times on CLOCK_MONOTONIC, the clock of the deadline timer.
    public func useMonotonicClock() -> Bool {
        libevdev_set_clock_id(dev, CLOCK_MONOTONIC) == 0
    }

    /// The keys libevdev believes are down (kept current by reading and by resync).
    public var keysHeld: [UInt16] {
        var keys: [UInt16] = []
        for code in 1..<UInt32(KEY_CNT) where libevdev_get_event_value(dev, UInt32(EV_KEY), code) != 0 {
            keys.append(UInt16(code))
        }
        return keys
    }

    public var anyKeyHeld: Bool {
        for code in 1..<UInt32(KEY_CNT) where libevdev_get_event_value(dev, UInt32(EV_KEY), code) != 0 { return true }
        return false
    }

    /// EVIOCGRAB: from now on only Keyhold sees the device's events.
    public func grab() -> Int32 {
        let rc = libevdev_grab(dev, LIBEVDEV_GRAB)
        if rc == 0 { isGrabbed = true }
        return rc
    }

    public func ungrab() {
        guard isGrabbed else { return }
        _ = libevdev_grab(dev, LIBEVDEV_UNGRAB)
        isGrabbed = false
    }

    public var hasLEDs: Bool { libevdev_has_event_type(dev, UInt32(EV_LED)) != 0 }

    /// Writes LED values to the device (the kernel's own keyboard handler cannot while we grab it).
    public func setLEDs(_ leds: LEDState) {
        guard isWritable, hasLEDs else { return }
        for (code, on) in [(LED_CAPSL, leds.capsLock), (LED_NUML, leds.numLock), (LED_SCROLLL, leds.scrollLock)]
        where libevdev_has_event_code(dev, UInt32(EV_LED), UInt32(code)) != 0 {
            _ = libevdev_kernel_set_led_value(dev, UInt32(code), on ? LIBEVDEV_LED_ON : LIBEVDEV_LED_OFF)
        }
    }

    /// Sends a key release into the input core for every reader of this (ungrabbed) device: a
    /// release that only Keyhold received while it held a grab it then gave up. Returns whether
    /// the kernel took it.
    @discardableResult
    public func injectRelease(_ code: UInt16) -> Bool {
        guard isWritable, !isGrabbed else { return false }
        var events = [input_event(), input_event()]
        events[0].type = UInt16(EV_KEY); events[0].code = code; events[0].value = 0
        events[1].type = UInt16(EV_SYN); events[1].code = UInt16(SYN_REPORT); events[1].value = 0
        let size = MemoryLayout<input_event>.stride * 2
        return events.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, size) } == size
    }

    /// Reads everything queued (the fd is non-blocking), handling SYN_DROPPED with libevdev's
    /// sync mode. Returns why it stopped: drained (EAGAIN), gone (ENODEV) or another error.
    public func readAvailable(_ body: (DeviceEvent) -> Void) -> DeviceReadEnd {
        var ev = input_event()
        var syncing = false
        while true {
            let flags = syncing ? LIBEVDEV_READ_FLAG_SYNC.rawValue : LIBEVDEV_READ_FLAG_NORMAL.rawValue
            let rc = libevdev_next_event(dev, flags, &ev)
            if rc == Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue) || (rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) && syncing) {
                deliver(ev, synced: syncing, body)
            } else if rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) {
                syncing = true
                body(.dropped)
            } else if rc == -EAGAIN {
                if syncing { syncing = false; body(.resynced); continue }
                return .drained
            } else if rc == -EINTR {
                continue
            } else if rc == -ENODEV {
                return .gone
            } else {
                return .failed(-rc)
            }
        }
    }

    private func deliver(_ ev: input_event, synced: Bool, _ body: (DeviceEvent) -> Void) {
        switch Int32(ev.type) {
        case EV_KEY:
            // Synthesized sync events carry no meaningful time.
            body(.key(code: ev.code, value: ev.value, time: synced ? nil : MonotonicClock.timestamp(ev.time)))
        case EV_SYN where Int32(ev.code) == SYN_REPORT:
            body(.frameEnd)
        default:
            break
        }
    }
}

/// Caps Lock, Num Lock and Scroll Lock.
public struct LEDState: Hashable, Sendable {
    public var numLock = false, capsLock = false, scrollLock = false
    public init(numLock: Bool = false, capsLock: Bool = false, scrollLock: Bool = false) {
        self.numLock = numLock; self.capsLock = capsLock; self.scrollLock = scrollLock
    }
}
