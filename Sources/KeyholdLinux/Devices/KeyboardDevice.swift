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
