import Glibc
import KeyholdKit

/// One input device as `DeviceManager` uses it: `InputDevice` (libevdev) on a real system, an
/// exact scripted fake in unit tests.
public protocol KeyboardDevice: AnyObject {
    var path: String { get }
    var name: String { get }
    var identity: DeviceIdentity { get }
    /// What the event loop waits on.
    var fd: Int32 { get }
    /// The keys the device says are down now (the kernel's state).
    var keysHeld: [UInt16] { get }
    var anyKeyHeld: Bool { get }
    /// Stamps events with CLOCK_MONOTONIC, the clock of the deadline timer; false if it cannot.
    func useMonotonicClock() -> Bool
    /// EVIOCGRAB: 0, or a negative errno.
    func grab() -> Int32
    func ungrab()
    func setLEDs(_ leds: LEDState)
    /// Sends a key release to every other reader of the (ungrabbed) device.
    @discardableResult func injectRelease(_ code: UInt16) -> Bool
    /// Hands over what is queued (after SYN_DROPPED: `.dropped`, then `.resynced` once `keysHeld`
    /// is to be trusted); says why it stopped.
    func readAvailable(_ body: (DeviceEvent) -> Void) -> DeviceReadEnd
}

/// An event read from a device: a key event, a SYN_REPORT (frame end), or a resync note.
public enum DeviceEvent: Equatable {
    /// `time`: the kernel's stamp (CLOCK_MONOTONIC).
    case key(code: UInt16, value: Int32, time: Timestamp)
    case frameEnd
    /// SYN_DROPPED: the kernel dropped events; what was lost is made up at `.resynced` from the
    /// device's key state.
    case dropped
    case resynced
}

/// Why one read pass stopped: everything read (EAGAIN), the device gone (ENODEV), another error.
public enum DeviceReadEnd: Equatable { case drained, gone, failed(Int32) }

/// Where devices come from: the event nodes present, opening one, and what udev says it is.
public protocol DeviceSource {
    /// Every event node present now, in numeric order.
    func eventNodes() -> [String]
    func open(_ path: String) throws(InputDevice.OpenError) -> any KeyboardDevice
    /// true: udev marks the node a keyboard; false: udev knows it and it is not one; nil: no record.
    func isKeyboard(_ path: String) -> Bool?
}

/// /dev/input through libevdev and libudev.
public struct SystemDeviceSource: DeviceSource {
    public init() {}
    public func eventNodes() -> [String] { DevicePolicy.eventNodes() }
    public func open(_ path: String) throws(InputDevice.OpenError) -> any KeyboardDevice { try InputDevice(path: path) }
    public func isKeyboard(_ path: String) -> Bool? { UdevInputClass.isKeyboard(path) }
}

/// Tells when event nodes come and go (`HotplugMonitor`); `changes()` runs when `fd` is readable.
public protocol HotplugSource: AnyObject {
    var fd: Int32 { get }
    func changes() -> [HotplugChange]
    /// How it watches, for the log.
    var summary: String { get }
}

public enum HotplugChange: Equatable { case added(String), removed(String) }

/// Now on CLOCK_MONOTONIC (the clock of device events and the deadline timer); a virtual clock in tests.
public protocol TimeSource {
    func now() -> Timestamp
}

/// The system's CLOCK_MONOTONIC.
public struct SystemTimeSource: TimeSource {
    public init() {}
    public func now() -> Timestamp { MonotonicClock.now() }
}

/// Something that runs a handler when a file descriptor is readable: `EventLoop`.
public protocol FileWatcher: AnyObject {
    func watch(_ fd: Int32, handler: @escaping () -> Void) throws(SystemError) -> EventLoop.Token
    func unwatch(_ token: EventLoop.Token)
}
