import Glibc
import KeyholdKit

/// Where devices come from: the event nodes present, opening one, and what udev says it is.
public protocol DeviceSource {
    /// Every event node present now, in numeric order.
    func eventNodes() -> [String]
    func open(_ path: String) throws(DeviceOpenError) -> any KeyboardDevice
    /// true: udev marks the node a keyboard; false: udev knows it and it is not one; nil: no record.
    func isKeyboard(_ path: String) -> Bool?
    /// The seat udev assigns the node (ID_SEAT); nil: none given (seat0) or no record.
    func seat(_ path: String) -> String?
}

/// /dev/input through libevdev and libudev.
public struct SystemDeviceSource: DeviceSource {
    public init() {}
    public func eventNodes() -> [String] {
        EventNodeCloser.start()   // before the first node is opened (and closed)
        return DevicePolicy.eventNodes()
    }
    public func open(_ path: String) throws(DeviceOpenError) -> any KeyboardDevice { try InputDevice(path: path) }
    public func isKeyboard(_ path: String) -> Bool? { UdevInputClass.isKeyboard(path) }
    public func seat(_ path: String) -> String? { UdevInputClass.seat(path) }
}

/// Why an event node could not be opened: open(2) failed, or libevdev could not read it.
public enum DeviceOpenError: Error, CustomStringConvertible {
    case open(Int32), libevdev(Int32)
    public var code: Int32 { switch self { case .open(let e), .libevdev(let e): return e } }
    public var description: String {
        switch self {
        case .open(let e): return errorString(e)
        case .libevdev(let e): return "libevdev: \(errorString(e))"
        }
    }
}
