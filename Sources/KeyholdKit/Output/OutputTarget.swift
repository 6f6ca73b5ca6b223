/// Where Keyhold's keystrokes go right now: the session in front of the user on the keyboard's
/// seat. It decides what `unicode_method = "auto"` means.
public struct OutputTarget: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// A Linux virtual console in text mode: Alt + keypad code points work.
        case textConsole = "text console"
        /// A display server on the VT (X11, Wayland).
        case graphical
        /// Nothing says (no logind, no readable VT).
        case unknown
    }

    public var kind: Kind
    /// The logind session (`2`), when logind runs.
    public var session: String?
    /// Its owner.
    public var uid: UInt32?
    /// The VT the session is on.
    public var vt: Int?
    /// logind's session type (`x11`, `wayland`, `tty`), or how the VT's mode was read.
    public var type: String?
    /// How this was found: `logind`, `active VT`.
    public var source: String

    public init(kind: Kind, session: String? = nil, uid: UInt32? = nil, vt: Int? = nil, type: String? = nil, source: String) {
        self.kind = kind; self.session = session; self.uid = uid; self.vt = vt; self.type = type
        self.source = source
    }

    /// A text console, for `keyhold simulate` and tests (its application is a console).
    public static let console = OutputTarget(kind: .textConsole, source: "simulation")

    /// `graphical session 2 of uid 1000 on VT 7 (x11, logind)`.
    public var description: String {
        var s = kind.rawValue
        if let session { s += " session \(session)" }
        if let uid { s += " of uid \(uid)" }
        if let vt { s += " on VT \(vt)" }
        s += " (" + [type, source].compactMap { $0 }.joined(separator: ", ") + ")"
        return s
    }
}

extension UnicodeMethod {
    /// The method to type with at `target`: `auto` picks one (docs/ARCHITECTURE.md, Output); any other is
    /// used as configured. `companion`: the target session's `keyhold-session` is connected
    /// (shown as its backend). With the reason, for `keyhold status` and the log.
    public func resolved(for target: OutputTarget, companion: String? = nil) -> (method: UnicodeMethod, reason: String) {
        guard self == .auto else {
            if self == .session && companion == nil { return (self, "set in the configuration; no companion yet: ctrl-shift-u") }
            return (self, "set in the configuration")
        }
        switch target.kind {
        case .textConsole:
            return (.console, "auto: \(target)")
        case .graphical:
            if let companion { return (.session, "auto: \(target), keyhold-session connected (\(companion))") }
            return (.ctrlShiftU, "auto: \(target), no keyhold-session companion")
        case .unknown:
            return (.console, "auto: where keys go is unknown (\(target.source)); the console's method")
        }
    }
}
