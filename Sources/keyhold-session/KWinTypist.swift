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
/// Order: the daemon's keys before a character reach the program as key events, the character
/// as a text-input commit, and nothing keeps the two in order. KWin reads libinput on a thread
/// of its own and handles what it read later on its main thread, so its answer to a round trip
/// does not prove it has passed the keys on; and Qt queues a key event it reads but applies a
/// commit at once, so a commit read in the same batch as the key before it goes first (read in
/// their sources; seen in CI: a pick left `e` then `xyz`, its é erased by the Backspace meant
/// for the e). So a character after keys also waits for the program's own word: the text-input
/// state update it sends once its text changed (KWin passes it on as surrounding_text and
/// commit_state): as long as the program is busy, if it speaks of its text at all (a terminal
/// may send nothing: then a moment, `answerWait`).
final class KWinTypist: SessionTypist {
    let backend = "kwin"
    /// An input method commits whole strings; KWin starts it again at once when it exits.
    let capabilities: CompanionCapabilities = [.commitsText, .restartedWhenGone]
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

    /// How long after its keys a character waits for the focused program's state update: for a
    /// program that speaks of its text (it has sent a state update since it got the focus), until
    /// it answers, however busy it is, up to `busyLimit` (the daemon waits 10 s while it is told
    /// the character still waits; Qt and GTK fields answered within 40 ms in the test guest, a
    /// stopped one as late as it was stopped); short for one that let the last wait run out
    /// without answering (Konsole sends nothing), between the two for one not heard yet.
    static let answerWait = (unknown: Int64(150_000), silent: Int64(40_000))
    static let busyLimit = Int64(8_000_000)
    /// How often the daemon is told that a character still waits for a busy program.
    static let stillWaitingEvery = Int64(1_000_000)
    /// Whether the focused program let the last wait run out; reset when the focus moves
    /// (`khim_focus_generation`).
    private var ranOut = false
    private var focusGeneration: UInt32 = 0

    /// The keys before a character: a round trip, then until the program has sent a state update
    /// since the last of them was written (Qt applies a commit at once and the keys it read with
    /// it later, so a commit that reaches a program before it has handled the keys before it
    /// overtakes them), or the wait for a program that says nothing is over.
    func waitForTransitions(_ count: UInt64, writtenAt: Int64?, timeoutMilliseconds: Int64, stillWaiting: () -> Void) throws(DisplayLost) -> (reached: Bool, keymapChanged: Bool) {
        guard count > 0 else { return (true, try dispatch(readable: false)) }
        try seat.sync()
        var keymapChanged = try dispatch(readable: false)
        guard let writtenAt else { return (true, keymapChanged) }
        if khim_focus_generation() != focusGeneration {
            focusGeneration = khim_focus_generation()
            ranOut = false
        }
        let end = if ranOut {
            min(writtenAt + Self.answerWait.silent, Companion.nowMicroseconds() + timeoutMilliseconds * 1000)
        } else if khim_last_state_update() > 0 {
            writtenAt + Self.busyLimit
        } else {
            min(writtenAt + Self.answerWait.unknown, Companion.nowMicroseconds() + timeoutMilliseconds * 1000)
        }
        var toldAt = Companion.nowMicroseconds()
        while khim_active() == 1 && khim_last_state_update() < writtenAt {
            let now = Companion.nowMicroseconds()
            if now >= end { break }
            if now - toldAt >= Self.stillWaitingEvery {
                stillWaiting()
                toldAt = now
            }
            let slice = min(end - now, Self.stillWaitingEvery)
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, Int32((slice + 999) / 1000))
            if ready < 0 && errno != EINTR { throw DisplayLost() }
            if try dispatch(readable: ready > 0) { keymapChanged = true }
        }
        let answered = khim_last_state_update() >= writtenAt
        if khim_focus_generation() == focusGeneration { ranOut = !answered }
        Log.debug(answered ? "the program answered the keys \(khim_last_state_update() - writtenAt) µs after them"
                           : "the program did not answer the keys within \(end - writtenAt) µs")
        return (true, keymapChanged)
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
