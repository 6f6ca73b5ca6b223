import CEvdev
import Glibc
import KeyholdKit

/// The uinput keyboard every program receives Keyhold's keys from. Every key event is followed by
/// SYN_REPORT. The first key of a batch is written at once, the ones after it when `flush()` is
/// called (the daemon does after every loop batch) or one by one when paced. The kernel and
/// desktops write LED state to it; read `fd` with `readFeedback()` to learn Caps Lock / Num Lock
/// and mirror them to the grabbed keyboards.
public final class VirtualKeyboard: KeyEventOutput {
    public static let deviceName = "Keyhold Virtual Keyboard"
    public static let bustype = UInt16(BUS_VIRTUAL)
    /// "KH": distinctive, so `keyhold devices` and a second instance recognise the device.
    public static let vendor: UInt16 = 0x4b48
    public static let product: UInt16 = 0x0001

    /// The uinput fd: readable when LED (or repeat-rate) events arrive.
    public let fd: Int32
    private var uidev: OpaquePointer?
    /// /dev/input/eventN of the virtual keyboard (nil if evdev is not loaded).
    public let devnode: String?
    public private(set) var leds = LEDState()
    private var writeFailed = false

    /// Key codes enabled on the device: every KEY_* code, no BTN_* range (a button would make
    /// udev and libinput treat the keyboard as a mouse, joystick or tablet).
    static let keyCodes: [ClosedRange<Int32>] = [1...0xff, 0x160...0x21f, 0x224...0x2bf]
    /// The kernel's most (`input_estimate_events_per_packet`): 32 ids, 72 events a packet, times
    /// evdev's 8 packets, rounded up to a power of two.
    static let bufferSizingTrackingIDs: Int32 = 32

    public init() throws(SystemError) {
        guard let dev = libevdev_new() else { throw SystemError("libevdev_new", ENOMEM) }
        defer { libevdev_free(dev) }
        libevdev_set_name(dev, VirtualKeyboard.deviceName)
        libevdev_set_id_bustype(dev, Int32(VirtualKeyboard.bustype))
        libevdev_set_id_vendor(dev, Int32(VirtualKeyboard.vendor))
        libevdev_set_id_product(dev, Int32(VirtualKeyboard.product))
        libevdev_set_id_version(dev, 1)
        libevdev_enable_event_type(dev, UInt32(EV_KEY))
        for range in VirtualKeyboard.keyCodes {
            for code in range { libevdev_enable_event_code(dev, UInt32(EV_KEY), UInt32(code), nil) }
        }
        libevdev_enable_event_type(dev, UInt32(EV_LED))
        for led in [LED_NUML, LED_CAPSL, LED_SCROLLL] { libevdev_enable_event_code(dev, UInt32(EV_LED), UInt32(led), nil) }
        // EV_REP: uinput cannot take delay/period; the kernel defaults apply (250 ms, 33 ms).
        var delay: Int32 = 250, period: Int32 = 33
        libevdev_enable_event_type(dev, UInt32(EV_REP))
        libevdev_enable_event_code(dev, UInt32(EV_REP), UInt32(REP_DELAY), &delay)
        libevdev_enable_event_code(dev, UInt32(EV_REP), UInt32(REP_PERIOD), &period)
        // A reader's evdev buffer is sized from the device's capabilities: a keyboard gets 64
        // events (32 key transitions), which an X server whose input thread waits on a busy
        // main thread overran even at the OutputQueue's pace. An ABS_MT_TRACKING_ID axis of 32
        // ids (no slots, no positions: udev, libinput and X still see a keyboard only, and no
        // event of it is ever sent) makes the kernel reckon 72 events a packet: 1024 events a
        // reader, two seconds of paced typing.
        var trackingID = input_absinfo()
        trackingID.minimum = 0
        trackingID.maximum = VirtualKeyboard.bufferSizingTrackingIDs - 1
        libevdev_enable_event_type(dev, UInt32(EV_ABS))
        libevdev_enable_event_code(dev, UInt32(EV_ABS), UInt32(ABS_MT_TRACKING_ID), &trackingID)

        let fd = open("/dev/uinput", O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open /dev/uinput", errno) }
        var uidev: OpaquePointer?
        let rc = libevdev_uinput_create_from_device(dev, fd, &uidev)
        guard rc == 0, let uidev else { close(fd); throw SystemError("uinput device creation", -rc) }
        self.fd = fd
        self.uidev = uidev
        devnode = libevdev_uinput_get_devnode(uidev).map { String(cString: $0) }
        pending = .allocate(capacity: VirtualKeyboard.maximumBatch)   // last: nothing throws after it
    }

    deinit {
        destroy()
        pending.deallocate()
    }

    /// Removes the device. Call after releasing every key.
    public func destroy() {
        guard let uidev else { return }
        flush()
        libevdev_uinput_destroy(uidev)   // UI_DEV_DESTROY; the fd is ours to close
        close(fd)
        self.uidev = nil
    }

    public var exists: Bool { uidev != nil }

    public func send(_ key: KeyCode, _ state: KeyState) {
        guard uidev != nil else { return }
        var event = input_event()
        event.type = UInt16(EV_KEY)
        event.code = key.rawValue
        event.value = state.rawValue
        pending[pendingCount] = event
        pending[pendingCount + 1] = VirtualKeyboard.synReport
        pendingCount += 2
        // The batch's first key is what somebody waits for: it goes out now, and what the batch
        // does after it (the engine unwinding, a typed character's release, feedback bookkeeping)
        // comes after it instead of before. A forwarded key is one write as before; a typed
        // character is two (its press now, its release with the rest of the batch).
        if !batchWrote { batchWrote = true; writePending(); return }
        // Pacing is the OutputQueue's (a timer, never a sleep); this only batches writes.
        if pendingCount >= VirtualKeyboard.maximumBatch { writePending() }
    }

    /// Writes the events sent since the batch's first key in one write(2), and ends the batch.
    /// The daemon flushes after every batch of its event loop, so nothing waits longer than the
    /// batch that produced it; one write never exceeds 32 events (half the kernel's 64-event
    /// buffer of a reader).
    public func flush() {
        writePending()
        batchWrote = false
    }

    private func writePending() {
        defer { pendingCount = 0 }
        guard pendingCount > 0, uidev != nil else { return }
        let size = MemoryLayout<input_event>.stride * pendingCount
        var written = 0
        while written < size {
            let n = write(fd, UnsafeRawPointer(pending) + written, size - written)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                if !writeFailed { Log.error("writing to the virtual keyboard failed: \(errorString(errno))") }
                writeFailed = true
                break
            }
            written += n
        }
    }

    /// Events sent and not yet written: a buffer of its own for the device's lifetime, so a key
    /// sent is two stores (no array growth or uniqueness checks on the way to the write).
    private let pending: UnsafeMutablePointer<input_event>
    private var pendingCount = 0
    /// Whether this batch's first key is written (`flush()` ends a batch).
    private var batchWrote = false
    private static let maximumBatch = 32
    private static let synReport: input_event = {
        var event = input_event()
        event.type = UInt16(EV_SYN)
        event.code = UInt16(SYN_REPORT)
        return event
    }()

    /// Reads what the kernel wrote to the device (LED changes; repeat settings and force
    /// feedback requests are ignored). Returns true when the LED state changed.
    public func readFeedback() -> Bool {
        let before = leds
        var ev = input_event()
        let size = MemoryLayout<input_event>.stride
        while withUnsafeMutableBytes(of: &ev, { read(fd, $0.baseAddress, size) }) == size {
            guard Int32(ev.type) == EV_LED else { continue }
            let on = ev.value != 0
            switch Int32(ev.code) {
            case LED_CAPSL: leds.capsLock = on
            case LED_NUML: leds.numLock = on
            case LED_SCROLLL: leds.scrollLock = on
            default: break
            }
        }
        return leds != before
    }
}
