import CSessionX11
import Glibc

/// Types characters into an X11 session through XTest: each one gets a spare keycode for a
/// moment (given back `restoreDelay` after the last use), and reads the session's keymap.
final class X11Typist {
    let fd: Int32
    /// Spare keycodes keep their characters this long after the last one typed, so a burst of
    /// accents remaps nothing twice; then the keymap is as the desktop made it again.
    static let restoreDelayMilliseconds: Int64 = 2_000

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
    var hasTemporaryMappings: Bool { khx_has_temporary_mappings() != 0 }

    /// Types `text`; false when a character could not be typed.
    func type(_ text: String) -> Bool {
        var ok = true
        for scalar in text.unicodeScalars where khx_type(scalar.value) != 0 { ok = false }
        return ok
    }

    func restore() { _ = khx_restore() }

    /// Reads what the X server sent; true when the keymap may have changed.
    func dispatch() -> Bool { khx_dispatch() != 0 }

    /// The keymap as XKB text.
    func keymapText() -> String? {
        guard let text = khx_keymap_text() else { return nil }
        defer { free(text) }
        return String(cString: text)
    }
}
