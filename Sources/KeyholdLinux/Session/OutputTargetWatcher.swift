import CLinuxShim
import CSystemd
import Glibc
import KeyholdKit

/// Follows where the keyboard's keystrokes go, for `unicode_method = "auto"`: the active session
/// on the seat, from sd-login (its monitor fd sits in the event loop, so a VT or user switch is
/// seen at once and an idle daemon makes no wake-ups), and the active VT
/// (`/sys/class/tty/tty0/active`, which signals changes with EPOLLPRI): a VT without a session,
/// or every VT when there is no logind, is judged by its own mode.
///
/// A session is graphical when logind says x11, wayland or mir, or when its VT is in graphics
/// mode (an X server started with `startx` runs in a session logind calls `tty`).
public final class OutputTargetWatcher {
    public private(set) var target: OutputTarget
    /// Called on the loop's thread when the target changes.
    public var onChange: ((OutputTarget) -> Void)?
    public let seat: String

    private let loop: EventLoop
    private var monitor: OpaquePointer?
    private var tokens: [EventLoop.Token] = []
    private var activeVTFile: Int32 = -1
    /// Waits for logind's seats directory while logind has not started.
    private var logindAppearance: DirectoryAppearance?

    static let activeVTPath = "/sys/class/tty/tty0/active"

    public init(loop: EventLoop, seat: String = "seat0") {
        self.loop = loop
        self.seat = seat
        target = OutputTarget(kind: .unknown, source: "not started")
    }

    deinit { close() }

    /// Finds the target and starts watching: logind when it runs, else the active VT until
    /// logind starts (on a boot the two start side by side).
    public func start() {
        if Self.logindRuns { followLogind() }
        // The active VT as well: logind's seat file does not change between two VTs without a
        // session (a getty and a console program), and without logind it is all there is.
        activeVTFile = open(Self.activeVTPath, O_RDONLY | O_CLOEXEC)
        if activeVTFile >= 0 {
            Self.consume(activeVTFile)
            if let token = try? loop.watch(activeVTFile, for: .priority, handler: { [unowned self] _ in
                Self.consume(self.activeVTFile)
                self.refresh()
            }) { tokens.append(token) }
        }
        target = Self.currentTarget(seat: seat, logind: monitor != nil)
        Log.info("keys go to: \(target); following " + (monitor != nil ? "\(seat)'s active session (logind)"
                 : activeVTFile >= 0 ? "the active VT (no logind yet)" : "nothing (no logind yet, no readable active VT)"))
        if monitor == nil {
            logindAppearance = DirectoryAppearance(Self.seatsDirectory, loop: loop) { [unowned self] in
                self.logindAppearance = nil
                guard self.followLogind() else { return }
                Log.info("logind started: following \(self.seat)'s active session")
                self.refresh()
            }
        }
    }

    /// Watches logind's seats; false when sd-login cannot.
    @discardableResult
    private func followLogind() -> Bool {
        guard let monitor = Self.loginMonitor() else { return false }
        let fd = sd_login_monitor_get_fd(monitor)
        guard fd >= 0, let token = try? loop.watch(fd, handler: { [unowned self] in
            sd_login_monitor_flush(monitor)
            self.refresh()
        }) else {
            sd_login_monitor_unref(monitor)
            return false
        }
        self.monitor = monitor
        tokens.append(token)
        return true
    }

    /// Reads the target again; tells `onChange` when it moved.
    public func refresh() {
        let new = Self.currentTarget(seat: seat, logind: monitor != nil)
        guard new != target else { return }
        target = new
        Log.info("keys go to: \(target)")
        onChange?(target)
    }

    public func close() {
        logindAppearance = nil
        for token in tokens { loop.unwatch(token) }
        tokens.removeAll()
        if let monitor { sd_login_monitor_unref(monitor); self.monitor = nil }
        if activeVTFile >= 0 { Glibc.close(activeVTFile); activeVTFile = -1 }
    }

    // MARK: - Reading the state

    /// Reads a sysfs attribute through the watched descriptor: until it is read again, sysfs
    /// keeps reporting the change (EPOLLPRI is level-triggered).
    private static func consume(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        _ = lseek(fd, 0, SEEK_SET)
        _ = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    }

    /// logind runs when its runtime directory exists (sd_booted alone is true without it in
    /// containers and minimal systems).
    static let seatsDirectory = "/run/systemd/seats"
    static var logindRuns: Bool { DirectoryAppearance.isDirectory(seatsDirectory) }

    private static func loginMonitor() -> OpaquePointer? {
        var monitor: OpaquePointer?
        // The seat files say which session is active. (No category at all would also watch
        // /run/systemd/machines/, which exists only with systemd-machined, and fail without.)
        let rc = sd_login_monitor_new("seat", &monitor)
        guard rc >= 0 else {
            let why = keyhold_systemd_available() == 0 ? "libsystemd.so.0 cannot be opened" : errorString(-rc)
            Log.warning("sd-login: cannot watch seats (\(why)); following the active VT instead")
            return nil
        }
        return monitor
    }

    static func currentTarget(seat: String, logind: Bool) -> OutputTarget {
        if logind, let target = logindTarget(seat: seat) { return target }
        return activeVTTarget()
    }

    /// The seat's active session, from sd-login; nil when logind knows none.
    static func logindTarget(seat: String) -> OutputTarget? {
        var session: UnsafeMutablePointer<CChar>?
        var uid: uid_t = 0
        guard sd_seat_get_active(seat, &session, &uid) >= 0, let session else { return nil }
        defer { free(session) }
        var typePointer: UnsafeMutablePointer<CChar>?
        let type: String? = sd_session_get_type(session, &typePointer) >= 0 && typePointer != nil
            ? String(cString: typePointer!) : nil
        free(typePointer)
        var vtNumber: UInt32 = 0
        let vt: Int? = sd_session_get_vt(session, &vtNumber) >= 0 ? Int(vtNumber) : nil
        var kind: OutputTarget.Kind
        switch type {
        case "x11", "wayland", "mir": kind = .graphical
        case "tty": kind = .textConsole
        default: kind = .unknown
        }
        // `startx` from a text login: logind still says tty; the VT's mode tells.
        if kind != .graphical, let vt, let mode = vtMode(vt) { kind = mode }
        return OutputTarget(kind: kind, session: String(cString: session), uid: uid, vt: vt, type: type, source: "logind")
    }

    /// The active VT and its mode, without logind.
    static func activeVTTarget() -> OutputTarget {
        guard let vt = activeVT() else { return OutputTarget(kind: .unknown, source: "no readable active VT") }
        var owner: UInt32?
        var st = stat()
        if stat("/dev/tty\(vt)", &st) == 0 { owner = st.st_uid }
        guard let kind = vtMode(vt) else {
            return OutputTarget(kind: .unknown, uid: owner, vt: vt, source: "active VT, mode unreadable")
        }
        return OutputTarget(kind: kind, uid: owner, vt: vt, type: kind == .graphical ? "graphics mode" : "text mode",
                            source: "active VT")
    }

    /// KD_TEXT or KD_GRAPHICS of VT `vt`, when it is the active one (the only one whose mode
    /// decides anything), through /dev/tty0, which is the active VT; nil when it is another or
    /// tty0 cannot be opened. Opened for writing, which KDGETMODE needs no more than reading: the
    /// service's user has a write-only ACL on tty0 alone (75-keyhold.rules), as group tty has, and
    /// never reads what is on it.
    static func vtMode(_ vt: Int) -> OutputTarget.Kind? {
        guard activeVT() == vt else { return nil }
        let fd = open("/dev/tty0", O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        let mode = keyhold_vt_mode(fd)
        // The VT switched between the two reads: say nothing of the one asked about.
        guard mode >= 0, activeVT() == vt else { return nil }
        return mode == keyhold_kd_graphics ? .graphical : .textConsole
    }

    /// The active VT's number, from sysfs.
    static func activeVT() -> Int? {
        guard let text = readTextFile(activeVTPath), text.hasPrefix("tty") else { return nil }
        return Int(text.dropFirst(3).prefix(while: { $0.isNumber }))
    }
}
