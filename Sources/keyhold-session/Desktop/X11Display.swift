import CSessionX11
import Glibc
import KeyholdLinux

/// The X server (CSessionX11): its keymap (XKB), the focused window (WM_CLASS, _NET_WM_PID),
/// clicks and the keys of Keyhold's virtual keyboard it has delivered (XInput 2). XTest types
/// on the same connection (`XTestSurface`).
final class X11Display: DisplayConnection {
    let state = CState(khx_state())
    let fd: Int32

    enum OpenError: Error, CustomStringConvertible {
        case noDisplay, noXTest, noXKB, noSpareKeycode
        var description: String {
            switch self {
            case .noDisplay: return "cannot open the X display \(environment("DISPLAY") ?? "(DISPLAY is not set)")"
            case .noXTest: return "the X server has no XTEST extension"
            case .noXKB: return "the X server has no XKEYBOARD extension"
            case .noSpareKeycode: return "the keymap has no free keycode to type through"
            }
        }
    }

    init() throws(OpenError) {
        let rc = khx_open(state.pointer)
        switch rc {
        case -1: throw .noDisplay
        case -2: throw .noXTest
        case -3: throw .noXKB
        case -4: throw .noSpareKeycode
        default: fd = rc
        }
    }

    deinit { khx_close(state.pointer) }

    /// Reads what the X server sent (Xlib also holds events it read while waiting for a reply);
    /// true when the desktop replaced the keymap.
    func dispatch(readable: Bool) throws(DisplayLost) -> Bool {
        let rc = khx_dispatch(state.pointer)
        if rc < 0 { throw DisplayLost() }
        return rc == 1
    }

    func startRoundTrip() { khx_sync_start(state.pointer) }

    var roundTripAnswered: Bool { khx_sync_done(state.pointer) != 0 }

    func keymapText() -> String? {
        guard let text = khx_keymap_text(state.pointer) else { return nil }
        defer { free(text) }
        return String(cString: text)
    }

    func focusedWindow() -> FocusedWindow? {
        var instance = [CChar](repeating: 0, count: 256), klass = [CChar](repeating: 0, count: 256)
        var pid: Int32 = 0, fullscreen: Int32 = 0
        guard khx_focus(state.pointer, &instance, Int32(instance.count), &klass, Int32(klass.count), &pid, &fullscreen) == 1 else { return nil }
        return FocusedWindow(ids: [String(cStringBuffer: instance), String(cStringBuffer: klass)], pid: pid > 0 ? pid : nil, fullscreen: fullscreen != 0)
    }

    func takeClicks() -> Int { Int(khx_take_clicks(state.pointer)) }
    func takeFocusChanges() -> Int { Int(khx_take_focus_changes(state.pointer)) }

    /// Gives the spare keycodes back (when stopping).
    func restore() { _ = khx_restore(state.pointer) }
}
