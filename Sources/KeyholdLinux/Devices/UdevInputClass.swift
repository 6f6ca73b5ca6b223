import CUdev
import Glibc

/// What udevd says an input node is (60-input-id.rules) and whose seat it is. The system service
/// may open only the nodes udev marked as seat0's keyboards (75-keyhold.rules gives its user an
/// ACL on those alone), so a node refused to it that udev does not call a keyboard is not one to
/// wait for or warn about.
enum UdevInputClass {
    /// true: a keyboard; false: udev knows the node and it is not one; nil: udev has no record
    /// (no udevd, or not processed yet).
    static func isKeyboard(_ path: String) -> Bool? {
        property("ID_INPUT_KEYBOARD", of: path).map { $0 == "1" }
    }

    /// The node's seat (ID_SEAT, which logind's `loginctl attach` sets); nil: seat0 (none given)
    /// or no record.
    static func seat(_ path: String) -> String? {
        guard let seat = property("ID_SEAT", of: path), !seat.isEmpty else { return nil }
        return seat
    }

    /// A property of the node's udev record: "" when the record lacks it, nil without a record.
    private static func property(_ name: String, of path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0, let udev = udev_new() else { return nil }
        defer { udev_unref(udev) }
        guard let device = udev_device_new_from_devnum(udev, Int8(UInt8(ascii: "c")), st.st_rdev) else { return nil }
        defer { udev_device_unref(device) }
        guard udev_device_get_is_initialized(device) == 1 else { return nil }
        return udev_device_get_property_value(device, name).map { String(cString: $0) } ?? ""
    }
}
