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
/// which ibus-daemon shows a client that asks: CSessionIBus), then for a round trip to GNOME
/// Shell's main loop on its IBus connection, which proves those keys are back in mutter's queue
/// (`khi_sync_panel`), two round trips to the compositor, each an iteration of that loop which
/// hands one on, and `settleMilliseconds`.
/// Measured on a pick's BackSpace in the GNOME phase: sent at once, é came first in the VTE cell;
/// after a fixed 150 ms, in 1 or 2 of 10 cells; after the answers alone, in 4 of 10; after the
/// answers, the compositor's round trips and the settle time, in 0 of 60 (six runs) on an idle
/// machine, but 10 cells failed in a run beside a busy loop, where GNOME Shell answered a round
/// trip in 187 ms at the median and over a second at p90: the keys took longer than the 1 s the
/// wait had, é went ahead of the BackSpace, or the daemon gave up and typed ctrl-shift-u's digits.
/// Now the wait goes on while GNOME Shell is busy (`waitForKeys`), telling the daemon so: 0 failed
/// in the same setup. Keys typed where no text input had the focus (a game) never pass IBus: the
/// first character after them waits the whole timeout (1 s) while GNOME Shell is not busy. Text
/// the daemon types goes whole (`commitsText`), so none of it takes the other way.
final class IBusTypist: SessionTypist {
    let backend = "ibus"
    /// A commit and the keys before it reach the program by different ways: text goes whole.
    let capabilities: CompanionCapabilities = [.commitsText]
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
    func waitForTransitions(_ count: UInt64, writtenAt: Int64?, timeoutMilliseconds: Int64, stillWaiting: () -> Void) throws(DisplayLost) -> (reached: Bool, keymapChanged: Bool) {
        guard count > 0 else { return (true, try dispatch(readable: false)) }
        let reached = waitForKeys(count, timeoutMilliseconds: timeoutMilliseconds, stillWaiting: stillWaiting)
        if !reached { Log.info("IBus passed \(khi_keys_passed()) of the \(count) keys before the character") }
        // The panel's answer: the answered keys are back in GNOME Shell's queue; each round trip
        // to the compositor after it is a main-loop iteration that hands one on (CSessionIBus).
        if panelBusyMilliseconds() >= Self.busyMilliseconds { stillWaiting() }
        try seat.sync()
        try seat.sync()
        poll(nil, 0, Self.settleMilliseconds)
        return (reached, try dispatch(readable: false))
    }

    /// Until `count` keys have passed IBus, or `timeoutMilliseconds` have gone by without them
    /// while the desktop was free to pass them: a round trip to GNOME Shell's main loop between
    /// slices of the wait shows when it was busy instead (drawing: seconds at a time on a loaded
    /// machine, measured in QEMU), and that time is added, `busyLimitMilliseconds` in all. Keys
    /// that never pass IBus (typed where no text input had the focus) wait the timeout alone.
    private func waitForKeys(_ count: UInt64, timeoutMilliseconds: Int64, stillWaiting: () -> Void) -> Bool {
        let start = Companion.now()
        var end = start + timeoutMilliseconds
        let limit = start + Self.busyLimitMilliseconds
        while true {
            let left = min(end, limit) - Companion.now()
            if left <= 0 { return false }
            if khi_wait_keys(count, Int32(min(left, Self.sliceMilliseconds))) == 1 { return true }
            let busy = panelBusyMilliseconds()
            if busy >= Self.busyMilliseconds {
                end += busy
                stillWaiting()
            }
        }
    }

    /// How long a round trip to the IBus panel took (about 0 without a panel).
    private func panelBusyMilliseconds() -> Int64 {
        let asked = Companion.now()
        if khi_sync_panel() != 0 && khi_ready() == 1 { Log.debug("the IBus panel did not answer a round trip") }
        return Companion.now() - asked
    }

    /// After the compositor's round trips, for its event queue (see the type's comment).
    static let settleMilliseconds: Int32 = 20
    /// A wait for keys is cut in slices this long, a round trip to the panel after each.
    static let sliceMilliseconds: Int64 = 200
    /// A round trip this slow means the panel's main loop was busy (GNOME Shell in an idle QEMU
    /// guest: 10 ms at the least, 33 ms at the median; beside a busy loop, 187 ms at the median).
    static let busyMilliseconds: Int64 = 50
    /// The longest a character waits for the keys before it while the desktop is busy (the
    /// daemon waits up to 10 s while the companion says it still waits).
    static let busyLimitMilliseconds: Int64 = 8_000

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
