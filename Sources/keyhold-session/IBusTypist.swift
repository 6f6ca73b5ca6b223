import CSessionIBus
import Glibc
import KeyholdKit
import KeyholdLinux

/// Types characters through IBus, the input method GNOME runs (and any desktop where IBus is the
/// input method): each is committed to the focused input context, as IBus's own emoji panel
/// commits what it picks (CSessionIBus: the panel extension; no engine is switched, so the
/// user's engine, its composition and the layout stay exactly as they were). The keymap is the
/// current GNOME input source's (GNOME tells a client without a window nothing of a switch),
/// elsewhere the seat's. The seat is the display connection: Wayland's (GNOME's default) or the X
/// server's (GNOME on X11), which also says which window has the focus and sees clicks.
///
/// Order: what comes after a character waits for the acknowledgement, sent once ibus-daemon has
/// passed the commit on, so it cannot overtake. The keys before it take another way in: GNOME
/// Shell hands each to ibus-daemon and the user's engine, and puts it back into mutter's event
/// queue for the program when they answer, while a commit goes straight through. So a character
/// waits until the daemon's keys before it have passed IBus (their ProcessKeyEvent calls answered,
/// which ibus-daemon shows a client that asks: CSessionIBus), then for two round trips to the
/// compositor and `settleMilliseconds`. Measured on a pick's BackSpace in the GNOME phase: sent at
/// once, é came first in the VTE cell; after a fixed 150 ms, in 1 or 2 of 10 cells; after the
/// answers alone, in 4 of 10; as now, in 0 of 60 (six runs). Keys typed where no text input had
/// the focus (a game) never pass IBus: the first character after them waits the whole timeout
/// (1 s). Text the daemon types goes whole (`commitsText`), so none of it takes the other way.
final class IBusTypist: SessionTypist {
    let backend = "ibus"
    /// The display connection (a WaylandTypist without its virtual keyboard, or an X11Typist that
    /// types nothing): its fd, its round trips, the seat's keymap where GNOME's settings do not say.
    private let seat: SessionTypist
    private let gnomeSources: Bool
    /// The keymap of the GNOME input source last read.
    private let sourceKeymap = NamedKeymap()
    private var refusals = CommitRefusals()

    init(seat: SessionTypist) {
        self.seat = seat
        gnomeSources = khg_open() == 1
        switch khi_open() {
        case 1: break
        case 0: Log.info("IBus is not running yet; characters fall back to the daemon's method until it is")
        default: Log.warning("IBus runs but its panel extension cannot be had; characters fall back to the daemon's method")
        }
    }

    deinit { khi_close() }

    /// Whether an ibus-daemon answers now: connects as `init` does, and lets go if not.
    static var isRunning: Bool {
        if khi_open() == 1 { return true }
        khi_close()
        return false
    }

    var fd: Int32 { seat.fd }

    var summary: String {
        "committing to IBus's focused input context, the picker as its lookup table"
            + (gnomeSources ? ", the layout of GNOME's current input source" : "")
    }

    func dispatch(readable: Bool) throws(DisplayLost) -> Bool {
        let seatChanged = try seat.dispatch(readable: readable)
        let sourcesChanged = khg_take_changes() > 0
        return gnomeSources ? sourcesChanged : seatChanged
    }

    func type(_ text: String) throws(DisplayLost) -> Bool {
        let committed = khi_commit(text) == 0
        refusals.note(committed: committed, through: "IBus",
                      why: khi_ready() == 1 ? "no application's text input has the focus in IBus" : "IBus is not reachable")
        return committed
    }

    func sync() throws(DisplayLost) {
        if khi_sync() != 0 { Log.debug("ibus-daemon did not answer a round trip") }
    }

    /// Counts the keys that pass IBus from here.
    func follow(device name: String) -> Bool {
        khi_reset_keys()
        return true
    }

    func resetCount() throws(DisplayLost) -> Bool {
        khi_reset_keys()
        return try dispatch(readable: false)
    }

    /// The keys before a character: each key transition the daemon wrote goes through IBus as
    /// one ProcessKeyEvent while a program's text input has the focus.
    func waitForTransitions(_ count: UInt64, writtenAt: Int64?, timeoutMilliseconds: Int64) throws(DisplayLost) -> (reached: Bool, keymapChanged: Bool) {
        guard count > 0 else { return (true, try dispatch(readable: false)) }
        let reached = khi_wait_keys(count, Int32(clamping: timeoutMilliseconds)) == 1
        try seat.sync()
        try seat.sync()
        poll(nil, 0, Self.settleMilliseconds)
        return (reached, try dispatch(readable: false))
    }

    /// After the compositor's round trips, for its event queue (see the type's comment).
    static let settleMilliseconds: Int32 = 20

    var temporaryKeycodes: [Int] { [] }
    func takeClicks() -> Int { seat.takeClicks() }
    func takeFocusChanges() -> Int { Int(khi_take_focus_changes()) + seat.takeFocusChanges() }
    /// The X server says; GNOME tells a Wayland client nothing of other windows.
    func focusedWindow() -> FocusedWindow? { seat.focusedWindow() }

    /// What IBus says of the focused input context: none at all (IBus's fake context: a game, a
    /// file list), a password, a terminal or text; nil while IBus is not reachable.
    func focusedTextField() -> ApplicationFocus.TextField? {
        guard khi_ready() == 1 else { return nil }
        guard khi_focused() == 1 else { return ApplicationFocus.TextField.none }
        switch khi_purpose() {
        case 8, 9: return .password   // IBUS_INPUT_PURPOSE_PASSWORD, _PIN
        case 10: return .terminal      // IBUS_INPUT_PURPOSE_TERMINAL
        default: return .normal
        }
    }

    func keymapText() -> String? {
        guard gnomeSources else { return seat.keymapText() }
        return sourceKeymap.current(of: "GNOME's input sources", read: khg_current) ?? seat.keymapText()
    }

    func restore() { khi_close() }
}
