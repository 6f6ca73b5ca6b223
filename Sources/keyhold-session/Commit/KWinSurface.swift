import CSessionKWin
import Glibc
import KeyholdKit
import KeyholdLinux

/// Commits characters as KWin's input method (KDE Plasma on Wayland): KWin starts the program its
/// Virtual Keyboard setting names, hands it the input method on a connection of its own
/// (WAYLAND_SOCKET), and passes what it commits to the focused program's text input
/// (CSessionKWin). The keyboard is not grabbed: the daemon reads the keys from evdev and they
/// reach programs as always. An input method commits whole strings, and KWin starts it again at
/// once when it exits.
final class KWinSurface: CommitSurface {
    let backend = "kwin"
    let capabilities: CompanionCapabilities = [.commitsText, .restartedWhenGone]
    let state = CState(khim_state())
    private let seat: WaylandDisplay
    private var refusals = CommitRefusals()

    enum OpenError: Error, CustomStringConvertible {
        case noInputMethod
        var description: String {
            "KWin started keyhold-session as its input method but offers it none (zwp_input_method_v1)"
        }
    }

    /// On the connection KWin handed this program (WAYLAND_SOCKET: the one that has the input method).
    init(seat: WaylandDisplay) throws(OpenError) {
        self.seat = seat
        guard khim_open(state.pointer, seat.display) == 1 else { throw .noInputMethod }
    }

    deinit { khim_close(state.pointer) }

    var summary: String { "KWin's input method, committing to the focused text input, the picker under its cursor" }

    func commit(_ scalars: ArraySlice<Unicode.Scalar>) throws(DisplayLost) -> CommitOutcome {
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        let committed = khim_commit(state.pointer, String(text)) == 0
        refusals.note(committed: committed, through: "KWin's input method", why: "no program's text input has the focus in KWin")
        if committed { try seat.flush() }
        return committed ? .committed : .refused
    }

    /// KWin has passed the commit on once it answers a round trip sent after it.
    func startDelivery() throws(DisplayLost) { try seat.startRoundTrip() }
    var delivered: Bool { seat.roundTripAnswered }

    /// What the focused text input says of itself; nil when none has the focus, since KWin's
    /// input method cannot tell a program without text fields (a game) from one that does not
    /// speak text-input (an X11 program): the configuration decides there.
    func focusedTextField() -> ApplicationFocus.TextField? {
        switch khim_purpose(state.pointer) {
        case -1: return nil
        case 8: return .password    // ZWP_TEXT_INPUT_V1_CONTENT_PURPOSE_PASSWORD
        case 12: return .terminal   // ZWP_TEXT_INPUT_V1_CONTENT_PURPOSE_TERMINAL
        default: return .normal
        }
    }

    func takeFocusChanges() -> Int { Int(khim_take_focus_changes(state.pointer)) }

    func restore() { khim_close(state.pointer) }
}
