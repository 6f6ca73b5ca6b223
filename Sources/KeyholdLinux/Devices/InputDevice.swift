import CEvdev
import CLinuxShim
import Glibc
import KeyholdKit

/// One /dev/input/event* node: identity, capabilities, grab and LEDs through libevdev; events read
/// straight from the fd (one read() per wake-up, no EAGAIN round trip) and the key state asked of
/// the kernel (EVIOCGKEY) when it is needed: before grabbing and after SYN_DROPPED.
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
    /// Events of one read(); 64 is the kernel's per-client buffer.
    /// The read buffer, 64 events (a reader's whole kernel buffer), allocated once: a read needs
    /// no array access checks.
    private let events: UnsafeMutablePointer<input_event>
    private static let readCapacity = 64
    /// What the events read mean, SYN_DROPPED's rule kept from one read to the next.
    private var decoder = EventBatchDecoder()

    /// Opens the node non-blocking. Read-write when allowed (LEDs), else read-only: EVIOCGRAB
    /// needs only read access.
    public init(path: String) throws(DeviceOpenError) {
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
        events = .allocate(capacity: InputDevice.readCapacity)   // last: nothing throws after it
    }

    deinit {
        if isGrabbed { _ = libevdev_grab(dev, LIBEVDEV_UNGRAB) }
        libevdev_free(dev)
        EventNodeCloser.close(fd)   // not on the input thread: it waits for the kernel
        events.deallocate()
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

    /// The keys the kernel says are down now (EVIOCGKEY).
    public var keysHeld: [UInt16] {
        var bits = [UInt8](repeating: 0, count: (Int(KEY_CNT) + 7) / 8)
        guard keyhold_keys_held(fd, &bits, Int32(bits.count)) == 0 else { return [] }
        var keys: [UInt16] = []
        for (i, byte) in bits.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << bit) != 0 && i * 8 + bit > 0 { keys.append(UInt16(i * 8 + bit)) }
        }
        return keys
    }

    public var anyKeyHeld: Bool { !keysHeld.isEmpty }

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

    /// Reads what is queued (the fd is non-blocking): one read() of up to 64 events, again only
    /// when it came back full (the loop's epoll is level-triggered: what arrives later wakes it
    /// again). After SYN_DROPPED, hands `.dropped`, drops the events up to the next SYN_REPORT,
    /// hands on the rest of that read, then `.resynced`: `keysHeld` is the truth from there on
    /// (`EventBatchDecoder`).
    public func readAvailable(_ body: (DeviceEvent) -> Void) -> DeviceReadEnd {
        let size = MemoryLayout<input_event>.stride
        while true {
            let n = Glibc.read(fd, events, InputDevice.readCapacity * size)
            if n < 0 {
                switch errno {
                case EINTR: continue
                case EAGAIN: return .drained
                case ENODEV: return .gone
                default: return .failed(errno)
                }
            }
            let count = n / size
            decoder.decode(UnsafeBufferPointer(start: events, count: count), body)
            if count < InputDevice.readCapacity { return .drained }
        }
    }
}
