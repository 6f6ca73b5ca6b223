import CSessionWayland
import Glibc
import KeyholdLinux

/// The Wayland compositor (CSessionWayland): the seat's keymap and, where the compositor says
/// (wlr-foreign-toplevel-management), the active window. On wlroots compositors it also holds
/// the virtual keyboard the companion types with (`VirtualKeyboardSurface`); GNOME and KDE keep
/// virtual keyboards to their own input methods, so there it is opened without one.
final class WaylandDisplay: DisplayConnection {
    let state = CState(khw_state())
    let fd: Int32

    enum OpenError: Error, CustomStringConvertible {
        case noCompositor, noVirtualKeyboard, noSeat
        var description: String {
            switch self {
            case .noCompositor: return "cannot connect to the Wayland compositor \(environment("WAYLAND_DISPLAY") ?? "(WAYLAND_DISPLAY is not set)")"
            case .noVirtualKeyboard: return "this compositor offers no virtual keyboard (zwp_virtual_keyboard_v1)"
            case .noSeat: return "the compositor has no seat"
            }
        }
    }

    init(virtualKeyboard: Bool) throws(OpenError) {
        let rc = khw_open(state.pointer, virtualKeyboard ? 1 : 0)
        switch rc {
        case -2: throw .noVirtualKeyboard
        case -3: throw .noSeat
        case ..<0: throw .noCompositor
        default: fd = rc
        }
    }

    deinit { khw_close(state.pointer) }

    /// The connection, for what binds more of the compositor's globals on it (KWin's input method).
    var display: OpaquePointer? { state.pointer.pointee.display }

    var followsFocus: Bool { khw_follows_focus(state.pointer) != 0 }

    func dispatch(readable: Bool) throws(DisplayLost) -> Bool {
        let rc = khw_dispatch(state.pointer, readable ? 1 : 0)
        if rc < 0 { throw DisplayLost() }
        try flush()
        return rc == 1
    }

    /// Whether requests wait for the compositor to read them: the companion flushes again once
    /// the fd is writable (a key is never dropped, and the loop never waits for it).
    private(set) var outputPending = false

    func flush() throws(DisplayLost) {
        let rc = khw_flush(state.pointer)
        if rc < 0 { throw DisplayLost() }
        outputPending = rc == 1
    }

    func startRoundTrip() throws(DisplayLost) {
        if khw_sync_start(state.pointer) < 0 { throw DisplayLost() }
    }

    var roundTripAnswered: Bool { khw_sync_done(state.pointer) != 0 }

    func keymapText() -> String? {
        guard let text = khw_keymap_text(state.pointer) else { return nil }
        defer { free(text) }
        return String(cString: text)
    }

    func focusedWindow() -> FocusedWindow? {
        var appID = [CChar](repeating: 0, count: 256)
        var fullscreen: Int32 = 0
        guard khw_focus(state.pointer, &appID, Int32(appID.count), &fullscreen) == 1 else { return nil }
        return FocusedWindow(ids: [String(cStringBuffer: appID)], pid: nil, fullscreen: fullscreen != 0)
    }

    func takeClicks() -> Int { 0 }
    func takeFocusChanges() -> Int { Int(khw_take_focus_changes(state.pointer)) }
}
