import CSessionWayland
import Glibc

/// Types characters into a Wayland session through a virtual keyboard (zwp_virtual_keyboard_v1:
/// sway, Hyprland, river, labwc and other wlroots compositors) whose keymap holds exactly the
/// characters typed, and reads the desktop's keymap from the seat's keyboard.
///
/// Order: a client cannot see another client's keys, but it sees the seat switch keyboards: after
/// this process's keyboard typed (or sent its modifiers), the next key of Keyhold's keyboard
/// makes the compositor send every client the desktop's keymap. A character that follows keys
/// waits for that: proof the compositor read the first key typed since this process last typed.
/// Keys after that one have only the daemon's pause before a hand-off
/// (OutputQueue.handOffSettleMicroseconds): a compositor stalled longer than that while reading
/// them could still let a character overtake them.
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

    init() throws(OpenError) {
        let rc = khw_open()
        switch rc {
        case -2: throw .noVirtualKeyboard
        case -3: throw .noSeat
        case ..<0: throw .noCompositor
        default: fd = rc
        }
    }

    deinit { khw_close() }

    var summary: String { "a virtual keyboard with a keymap of its own" }

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

    /// Follows the seat's keyboard switches (any device: the compositor does not say which).
    func follow(device name: String) -> Bool {
        khw_activate()
        return khw_flush() == 0
    }

    /// Typing left this process's keyboard active: the next key of another one is seen.
    func resetCount() throws(DisplayLost) -> Bool { try dispatch(readable: false) }

    /// Waits until another keyboard has typed since this one (the first of the `count` keys).
    func waitForTransitions(_ count: UInt64, timeoutMilliseconds: Int64) throws(DisplayLost) -> (reached: Bool, keymapChanged: Bool) {
        var keymapChanged = try dispatch(readable: false)
        let end = Companion.now() + timeoutMilliseconds
        while count > 0, khw_own_keyboard_active() != 0 {
            let left = end - Companion.now()
            if left <= 0 { return (false, keymapChanged) }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32(left))
            if ready < 0 && errno != EINTR { throw DisplayLost() }
            if ready > 0 {
                if pfd.revents & Int16(POLLHUP | POLLERR) != 0 { throw DisplayLost() }
                if try dispatch(readable: true) { keymapChanged = true }
            }
        }
        return (true, keymapChanged)
    }

    func takeClicks() -> Int { 0 }

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
