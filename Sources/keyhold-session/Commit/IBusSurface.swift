import CSessionIBus
import Glibc
import KeyholdKit
import KeyholdLinux

/// Commits characters through IBus, the input method GNOME runs (and any desktop where IBus is the
/// input method): each to the focused input context, as IBus's own emoji panel commits what it
/// picks (CSessionIBus: the panel extension; no engine is switched, so the user's engine, its
/// composition and the layout stay exactly as they were). What comes after a character waits for
/// the acknowledgement, sent once ibus-daemon has passed the commit on, so it cannot overtake.
/// Text the daemon types goes whole (`commitsText`): a commit and the keys before it reach the
/// program by different ways (`IBusOrdering`).
final class IBusSurface: CommitSurface {
    let backend = "ibus"
    let capabilities: CompanionCapabilities = [.commitsText]
    let state = CState(khi_state())
    private var refusals = CommitRefusals()

    init() {
        switch khi_open(state.pointer) {
        case 1: break
        case 0: Log.info("IBus is not running yet; characters fall back to the daemon's method until it is")
        default: Log.warning("IBus runs but its panel extension cannot be had; characters fall back to the daemon's method")
        }
    }

    deinit { khi_close(state.pointer) }

    /// Whether an ibus-daemon answers now: connects as `init` does, and lets go.
    static var isRunning: Bool {
        let probe = CState(khi_state())
        defer { khi_close(probe.pointer) }
        return khi_open(probe.pointer) == 1
    }

    var summary: String { "committing to IBus's focused input context, the picker as its lookup table" }

    /// Readable when keys have passed IBus (`IBusOrdering`): the typer looks at its next turn.
    var wakeFD: Int32? { khi_wake_fd(state.pointer) }
    func wake() {
        var count: UInt64 = 0
        _ = read(khi_wake_fd(state.pointer), &count, 8)
    }

    func commit(_ scalars: ArraySlice<Unicode.Scalar>) -> CommitOutcome {
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        let committed = khi_commit(state.pointer, String(text)) == 0
        refusals.note(committed: committed, through: "IBus",
                      why: khi_ready(state.pointer) == 1 ? "no application's text input has the focus in IBus" : "IBus is not reachable")
        return committed ? .committed : .refused
    }

    /// ibus-daemon has passed the commit on once it answers a call sent after it.
    func startDelivery() {
        if khi_sync_start(state.pointer) != 0 { Log.debug("ibus-daemon cannot be asked for a round trip") }
    }
    var delivered: Bool { khi_sync_done(state.pointer) != 0 }

    /// What IBus says of the focused input context: none at all (IBus's fake context: a game, a
    /// file list), a password, a terminal or text; nil while IBus is not reachable.
    func focusedTextField() -> ApplicationFocus.TextField? {
        guard khi_ready(state.pointer) == 1 else { return nil }
        guard khi_focused(state.pointer) == 1 else { return ApplicationFocus.TextField.none }
        switch khi_purpose(state.pointer) {
        case 8, 9: return .password   // IBUS_INPUT_PURPOSE_PASSWORD, _PIN
        case 10: return .terminal      // IBUS_INPUT_PURPOSE_TERMINAL
        default: return .normal
        }
    }

    func takeFocusChanges() -> Int { Int(khi_take_focus_changes(state.pointer)) }

    func restore() { khi_close(state.pointer) }
}
