import CSessionWayland
import Glibc

/// Types characters into a Wayland session through a virtual keyboard (zwp_virtual_keyboard_v1:
/// sway, Hyprland, river, labwc and other wlroots compositors) whose keymap holds exactly the
/// characters typed, and reads the desktop's keymap from the seat's keyboard.
///
/// Order: a client cannot see another device's keys, but the daemon wrote them to the evdev
/// device before it handed the character over, so they wait readable in the compositor's input
/// fd. A round trip first: the compositor answers it from a loop pass whose poll already saw that
/// fd readable, and it reads an input fd to the end, so the keys are handled before the
/// character, which reaches it in a later pass. (Measured: without it, a compositor busy
/// drawing the picker let é overtake the BackSpace before it.)
final class WaylandTypist: SessionTypist {
    let backend = "wayland"
    let fd: Int32

    enum OpenError: Error, CustomStringConvertible {
        case noCompositor, noVirtualKeyboard, noSeat
        var description: String {
            switch self {
            case .noCompositor: return "cannot connect to the Wayland compositor \(getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "(WAYLAND_DISPLAY is not set)")"
            case .noVirtualKeyboard: return "this compositor offers no virtual keyboard (zwp_virtual_keyboard_v1)"
            case .noSeat: return "the compositor has no seat"
            }
        }
    }

    /// `virtualKeyboard` false: only the seat's keymap is read (the IBus backend on GNOME and KDE,
    /// which keep virtual keyboards to their own input methods); nothing can be typed.
    init(virtualKeyboard: Bool = true) throws(OpenError) {
        let rc = khw_open(virtualKeyboard ? 1 : 0)
        switch rc {
        case -2: throw .noVirtualKeyboard
        case -3: throw .noSeat
        case ..<0: throw .noCompositor
        default: fd = rc
        }
    }

    deinit { khw_close() }

    var summary: String {
        "a virtual keyboard with a keymap of its own" + (khw_follows_focus() != 0 ? ", following the active window" : "")
    }

    func dispatch(readable: Bool) throws(DisplayLost) -> Bool {
        let rc = khw_dispatch(readable ? 1 : 0)
        if rc < 0 { throw DisplayLost() }
        return rc == 1
    }

    func type(_ text: String) throws(DisplayLost) -> Bool {
        var ok = true
        for scalar in text.unicodeScalars where khw_type(scalar.value) != 0 { ok = false }
        if khw_flush() != 0 { throw DisplayLost() }
        return ok
    }

    func sync() throws(DisplayLost) {
        if khw_sync() != 0 { throw DisplayLost() }
    }

    /// Nothing to count: a round trip stands for it (`waitForTransitions`).
    func follow(device name: String) -> Bool { true }

    func resetCount() throws(DisplayLost) -> Bool { try dispatch(readable: false) }

    /// The keys before a character: a round trip, after which the compositor has read them.
    func waitForTransitions(_ count: UInt64, writtenAt: Int64?, timeoutMilliseconds: Int64, stillWaiting: () -> Void) throws(DisplayLost) -> (reached: Bool, keymapChanged: Bool) {
        if count > 0 { try sync() }
        return (true, try dispatch(readable: false))
    }

    func takeClicks() -> Int { 0 }
    func takeFocusChanges() -> Int { Int(khw_take_focus_changes()) }

    func focusedWindow() -> FocusedWindow? {
        var appID = [CChar](repeating: 0, count: 256)
        var fullscreen: Int32 = 0
        guard khw_focus(&appID, Int32(appID.count), &fullscreen) == 1 else { return nil }
        return FocusedWindow(ids: [String(cStringBuffer: appID)], pid: nil, fullscreen: fullscreen != 0)
    }

    /// The characters are on a keyboard of their own, not on the desktop's keymap.
    var temporaryKeycodes: [Int] { [] }

    func keymapText() -> String? {
        guard let text = khw_keymap_text() else { return nil }
        defer { free(text) }
        return String(cString: text)
    }

    /// Nothing of the desktop's was changed; the virtual keyboard goes with the connection.
    func restore() {}
}
