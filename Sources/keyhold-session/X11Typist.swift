import CSessionX11
import Glibc

/// Types characters into an X11 session through XTest: each one gets a spare keycode (a keycode
/// no keyboard has; given back when the companion stops), and reads the session's keymap.
final class X11Typist: SessionTypist {
    let backend = "x11"
    let fd: Int32

    enum OpenError: Error, CustomStringConvertible {
        case noDisplay, noXTest, noXKB, noSpareKeycode
        var description: String {
            switch self {
            case .noDisplay: return "cannot open the X display \(getenv("DISPLAY").map { String(cString: $0) } ?? "(DISPLAY is not set)")"
            case .noXTest: return "the X server has no XTEST extension"
            case .noXKB: return "the X server has no XKEYBOARD extension"
            case .noSpareKeycode: return "the keymap has no free keycode to type through"
            }
        }
    }

    init() throws(OpenError) {
        let rc = khx_open()
        switch rc {
        case -1: throw .noDisplay
        case -2: throw .noXTest
        case -3: throw .noXKB
        case -4: throw .noSpareKeycode
        default: fd = rc
        }
    }

    deinit { khx_close() }

    var spareKeycodes: Int { Int(khx_spare_count()) }

    var summary: String { "\(spareKeycodes) spare keycodes" }

    /// Sends the key events that type `text` to the server (`sync()` waits until it has
    /// delivered them); false when a character could not be typed.
    func type(_ text: String) -> Bool {
        var ok = true
        for scalar in text.unicodeScalars where khx_type(scalar.value) != 0 { ok = false }
        khx_flush()
        return ok
    }

    func sync() { khx_sync() }

    /// Gives the spare keycodes back (when stopping).
    func restore() { _ = khx_restore() }

    /// Starts counting the key transitions the server delivers from the device `name`; false
    /// when there is no such device (or no XInput 2): then nothing can be waited for.
    func follow(device name: String) -> Bool { khx_follow_device(name) == 1 }

    /// Counts the followed device's transitions from zero again (reading what the server sent
    /// first); true when that showed a new keymap.
    func resetCount() -> Bool { khx_reset_count() != 0 }

    /// Waits (reading X events, at most `timeoutMilliseconds`) until the server has delivered
    /// `count` transitions of the followed device since the count last started; false on timeout.
    func waitForTransitions(_ count: UInt64, writtenAt: Int64?, timeoutMilliseconds: Int64, stillWaiting: () -> Void) -> (reached: Bool, keymapChanged: Bool) {
        var keymapChanged = false
        let end = Companion.now() + timeoutMilliseconds
        while true {
            // Xlib may already hold events it read while waiting for a reply: read those first,
            // as poll only sees what is still in the socket.
            if dispatch() { keymapChanged = true }
            if khx_transitions_seen() >= count { break }
            let left = end - Companion.now()
            if left <= 0 { return (false, keymapChanged) }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, Int32(left)) < 0 && errno != EINTR { return (false, keymapChanged) }
        }
        return (true, keymapChanged)
    }

    func takeClicks() -> Int { Int(khx_take_clicks()) }
    func takeFocusChanges() -> Int { Int(khx_take_focus_changes()) }

    func focusedWindow() -> FocusedWindow? {
        var instance = [CChar](repeating: 0, count: 256), klass = [CChar](repeating: 0, count: 256)
        var pid: Int32 = 0, fullscreen: Int32 = 0
        guard khx_focus(&instance, Int32(instance.count), &klass, Int32(klass.count), &pid, &fullscreen) == 1 else { return nil }
        return FocusedWindow(ids: [String(cStringBuffer: instance), String(cStringBuffer: klass)], pid: pid > 0 ? pid : nil, fullscreen: fullscreen != 0)
    }

    /// Reads what the X server sent (Xlib also holds events it read while waiting for a reply);
    /// true when the desktop replaced the keymap.
    func dispatch(readable: Bool = false) -> Bool { khx_dispatch() != 0 }

    /// X keycodes holding one of this process's characters: the daemon must not type with them.
    var temporaryKeycodes: [Int] {
        var codes = [UInt8](repeating: 0, count: 64)
        let n = Int(khx_temporary_keycodes(&codes, Int32(codes.count)))
        return codes.prefix(n).map(Int.init)
    }

    /// The keymap as XKB text.
    func keymapText() -> String? {
        guard let text = khx_keymap_text() else { return nil }
        defer { free(text) }
        return String(cString: text)
    }
}
