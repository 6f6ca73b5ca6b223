import CSessionIBus
import CSessionInputMethod
import Glibc
import KeyholdKit
import KeyholdLinux

/// Types characters as KWin's input method (KDE Plasma on Wayland): KWin starts the program its
/// Virtual Keyboard setting names, hands it the input method on a connection of its own
/// (WAYLAND_SOCKET), and passes what it commits to the focused program's text input
/// (CSessionInputMethod). The keyboard is not grabbed: the daemon reads the keys from evdev and
/// they reach programs as always. The keymap is KDE's current layout (kxkbrc's list, the current
/// one from KWin's org.kde.keyboard), else the seat's.
///
/// Order: the daemon's keys before a character reach KWin through libinput, the character
/// through this connection. A round trip first (as on wlroots): KWin answers it after it has
/// read what libinput had for it then; then text input events and key events leave KWin for the
/// program on one connection, in order.
final class KWinTypist: SessionTypist {
    let backend = "kwin"
    /// The input method's connection: the seat's keymap, and what KWin sends.
    private let seat: WaylandTypist
    private let kdeLayouts: Bool
    private let layoutKeymap = NamedKeymap()
    private var refusals = CommitRefusals()

    enum OpenError: Error, CustomStringConvertible {
        case noInputMethod
        var description: String {
            "KWin started keyhold-session as its input method but offers it none (zwp_input_method_v1)"
        }
    }

    /// Only as the program KWin started (WAYLAND_SOCKET in the environment: the connection that
    /// has the input method).
    init() throws {
        seat = try WaylandTypist(virtualKeyboard: false)
        guard khim_open() == 1 else { throw OpenError.noInputMethod }
        kdeLayouts = khk_open() == 1
    }

    deinit { khim_close() }

    var fd: Int32 { seat.fd }

    var summary: String {
        "KWin's input method, committing to the focused text input, the picker under its cursor"
            + (kdeLayouts ? ", the layout of KDE's current keyboard layout" : "")
    }

    func dispatch(readable: Bool) throws(DisplayLost) -> Bool {
        let seatChanged = try seat.dispatch(readable: readable)
        return khk_take_changes() > 0 || seatChanged
    }

    func type(_ text: String) throws(DisplayLost) -> Bool {
        let committed = khim_commit(text) == 0
        refusals.note(committed: committed, through: "KWin's input method", why: "no program's text input has the focus in KWin")
        return committed
    }

    func sync() throws(DisplayLost) { try seat.sync() }

    func follow(device name: String) -> Bool { true }

    func resetCount() throws(DisplayLost) -> Bool { try dispatch(readable: false) }

    /// The keys before a character: a round trip, after which KWin has read them.
    func waitForTransitions(_ count: UInt64, timeoutMilliseconds: Int64) throws(DisplayLost) -> (reached: Bool, keymapChanged: Bool) {
        if count > 0 { try seat.sync() }
        return (true, try dispatch(readable: false))
    }

    var temporaryKeycodes: [Int] { [] }
    func takeClicks() -> Int { 0 }
    func takeFocusChanges() -> Int { Int(khim_take_focus_changes()) }
    /// KWin tells an input method nothing of windows (its window list is for Plasma's own).
    func focusedWindow() -> FocusedWindow? { nil }

    /// What the focused text input says of itself; nil when none has the focus, since KWin's
    /// input method cannot tell a program without text fields (a game) from one that does not
    /// speak text-input (an X11 program): the configuration decides there.
    func focusedTextField() -> ApplicationFocus.TextField? {
        switch khim_purpose() {
        case -1: return nil
        case 8: return .password    // ZWP_TEXT_INPUT_V1_CONTENT_PURPOSE_PASSWORD
        case 12: return .terminal   // ZWP_TEXT_INPUT_V1_CONTENT_PURPOSE_TERMINAL
        default: return .normal
        }
    }

    func keymapText() -> String? {
        guard kdeLayouts else { return seat.keymapText() }
        return layoutKeymap.current(of: "KDE's keyboard layouts", read: khk_current) ?? seat.keymapText()
    }

    func restore() { khim_close() }
}
