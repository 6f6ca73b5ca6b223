import KeyholdKit

/// What Keyhold knows about an input device when deciding whether to grab it.
public struct DeviceIdentity: Hashable, Sendable {
    public var path: String
    public var name: String
    public var vendor: UInt16
    public var product: UInt16
    public var bustype: UInt16
    public var phys: String
    /// Has KEY_A..KEY_Z and KEY_SPACE.
    public var hasLettersAndSpace: Bool
    /// Has EV_REL or EV_ABS (a keyboard with a built-in touchpad or trackpoint).
    public var hasPointerAxes: Bool
    /// The seat udev assigns it (ID_SEAT; seat0 without one).
    public var seat: String

    public init(path: String, name: String, vendor: UInt16, product: UInt16, bustype: UInt16, phys: String,
                hasLettersAndSpace: Bool, hasPointerAxes: Bool, seat: String = DevicePolicy.seat) {
        self.path = path; self.name = name; self.vendor = vendor; self.product = product; self.bustype = bustype
        self.phys = phys; self.hasLettersAndSpace = hasLettersAndSpace; self.hasPointerAxes = hasPointerAxes; self.seat = seat
    }

    /// Keyhold's own uinput keyboard (this or another instance): name and bus:vendor:product must
    /// all match, so neither a look-alike name nor a reused id is enough.
    public var isKeyholdVirtualKeyboard: Bool {
        name == VirtualKeyboard.deviceName && bustype == VirtualKeyboard.bustype
            && vendor == VirtualKeyboard.vendor && product == VirtualKeyboard.product
    }

    /// The default heuristic. A keyboard that also moves a pointer is left alone unless included
    /// by a pattern: grabbing it would freeze the pointer, since only key events are re-emitted.
    public var looksLikeKeyboard: Bool { hasLettersAndSpace && !hasPointerAxes }

    /// `vendor:product` in hex, as patterns write it.
    public var idString: String { hex4(vendor) + ":" + hex4(product) }

    private func hex4(_ v: UInt16) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 4 - s.count) + s
    }
}

/// Whether Keyhold grabs a device, and why (`keyhold devices` prints the reason).
public struct DeviceDecision: Hashable, Sendable {
    public var grab: Bool
    public var reason: String
}

public enum DevicePolicy {
    /// The seat whose keyboards Keyhold takes: it types into the session in front of seat0 only
    /// (docs/SECURITY.md); a keyboard of another seat belongs to that seat's session.
    public static let seat = "seat0"

    public static func decide(_ device: DeviceIdentity, settings: KeyholdConfiguration.DeviceSettings) -> DeviceDecision {
        if device.isKeyholdVirtualKeyboard {
            return DeviceDecision(grab: false, reason: "Keyhold's own virtual keyboard")
        }
        if device.seat != seat {
            return DeviceDecision(grab: false, reason: "on \(device.seat): Keyhold serves \(seat)'s keyboards only")
        }
        let accepted = settings.accepts(name: device.name, vendor: device.vendor, product: device.product,
                                        phys: device.phys, isKeyboard: device.looksLikeKeyboard)
        let matches = { (pattern: DevicePattern) in
            pattern.matches(name: device.name, vendor: device.vendor, product: device.product, phys: device.phys)
        }
        let reason: String
        if let pattern = settings.exclude.first(where: matches) {
            reason = "excluded by pattern \"\(pattern)\""
        } else if !settings.include.isEmpty {
            if let pattern = settings.include.first(where: matches) {
                reason = "included by pattern \"\(pattern)\""
            } else {
                reason = "matches no [devices] include pattern"
            }
        } else if device.looksLikeKeyboard {
            reason = "keyboard (has KEY_A..KEY_Z and KEY_SPACE)"
        } else if device.hasLettersAndSpace {
            reason = "keyboard with pointer axes (EV_REL/EV_ABS): include it by name to grab it"
        } else {
            reason = "not a keyboard (lacks KEY_A..KEY_Z or KEY_SPACE)"
        }
        return DeviceDecision(grab: accepted, reason: reason)
    }

    /// Every /dev/input/event* node, in numeric order.
    public static func eventNodes(in directory: String = "/dev/input") -> [String] {
        guard let dir = opendirPath(directory) else { return [] }
        return dir.filter { $0.hasPrefix("event") && Int($0.dropFirst(5)) != nil }
            .sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }
            .map { directory + "/" + $0 }
    }
}
