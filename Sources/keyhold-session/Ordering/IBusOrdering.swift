import CSessionIBus
import Glibc
import KeyholdLinux

/// GNOME (IBus): the keys before a character take another way in than its commit. GNOME Shell
/// hands each key to ibus-daemon and the user's engine, and puts it back into mutter's event
/// queue for the program when they answer, while a commit goes straight through. So a character
/// waits until the daemon's keys before it have passed IBus (their ProcessKeyEvent calls
/// answered, which ibus-daemon shows a client that asks: CSessionIBus), then for a round trip to
/// GNOME Shell's main loop on its IBus connection, which proves those keys are back in mutter's
/// queue (khi_sync_panel_start), round trips to the compositor, each an iteration of that loop
/// which hands one on (as many as there may be events queued ahead, `roundTrips`), and `settle`.
///
/// Measured on a pick's BackSpace in the GNOME phase: sent at once, é came first in the VTE cell;
/// after a fixed 150 ms, in 1 or 2 of 10 cells; after the answers alone, in 4 of 10; after the
/// answers, the compositor's round trips and the settle time, in 0 of 60 (six runs) on an idle
/// machine, but 10 cells failed in a run beside a busy loop, where GNOME Shell answered a round
/// trip in 187 ms at the median and over a second at p90: the keys took longer than the 1 s the
/// wait had, é went ahead of the BackSpace, or the daemon gave up and typed ctrl-shift-u's digits.
/// So the wait goes on while GNOME Shell is busy (a slow answer to a round trip to its main loop
/// between slices of the wait), telling the daemon so: 0 failed in the same setup. Keys typed
/// where no text input had the focus (a game) never pass IBus: the first character after them
/// waits the whole timeout (1 s; 4 s once a text input has the focus again, see `focusedTimeout`).
///
/// That still left a program that reads late: GTK 3 applies a commit inside the dispatch that
/// read it, and a key read in the same dispatch after it (CI: a pick into a GTK program stopped
/// for 0.3 s showed `exyz` in 1 run of 3; stopped 4 s, in every run). So when a key that edits
/// text (BackSpace, a character) has passed IBus, a character then waits for the focused
/// program's own word that its text changed (AT-SPI, `ProgramAnswers`), if it speaks of its text
/// at all: as long as it is busy (it does not answer a call to its main loop), up to `busyLimit`;
/// one that answers and says nothing (the key changed nothing) is left after `quiet`.
final class IBusOrdering: KeyOrdering {
    private let ibus: IBusSurface
    private let seat: DisplayConnection

    private enum Phase: Equatable {
        case idle
        /// Until the keys have passed IBus, or `end` (moved on while GNOME Shell is busy, up to `limit`).
        case keys(count: UInt64, end: Int64, limit: Int64, sliceEnd: Int64)
        /// The panel's answer: the answered keys are back in GNOME Shell's queue.
        case panel(reached: Bool)
        /// Each round trip to the compositor after it is a main-loop iteration that hands one on.
        case compositor(remaining: Int, reached: Bool)
        case settle(until: Int64, reached: Bool)
        /// Until the focused program says the text the keys edited changed (`deleted`: a deletion),
        /// after `passedAt`, or it answers a call and then says nothing for `quiet`, or `end`.
        case program(deleted: Bool, passedAt: Int64, end: Int64, answeredAt: Int64?, reached: Bool)
    }
    private var phase = Phase.idle
    /// When the round trip to the panel under way began (µs); nil: none.
    private var panelAskedAt: Int64?
    private var tellDaemon = false

    private let program: ProgramAnswers?

    init(ibus: IBusSurface, seat: DisplayConnection, program: ProgramAnswers?) {
        self.ibus = ibus
        self.seat = seat
        self.program = program
    }

    /// Counts the keys that pass IBus from here.
    func follow(device name: String) -> Bool {
        khi_reset_keys(ibus.state.pointer)
        return true
    }

    func resetCount() { khi_reset_keys(ibus.state.pointer) }

    func start(count: UInt64, writtenAt: Int64?, now: Int64) {
        panelAskedAt = nil
        // Keys typed into an application's text input pass IBus, however late: a character that
        // went ahead of them would be deleted by its own BackSpace. Only keys typed where no text
        // input had the focus (a game) never pass it, and those cost the short wait.
        let timeout = khi_focused(ibus.state.pointer) == 1 ? Self.focusedTimeout : orderTimeoutMicroseconds
        phase = .keys(count: count, end: now + timeout, limit: now + Self.busyLimit, sliceEnd: now + Self.slice)
    }

    func check(now: Int64) throws(DisplayLost) -> OrderingState {
        while true {
            switch phase {
            case .idle:
                return .done(reached: true)
            case .keys(let count, var end, let limit, var sliceEnd):
                if khi_keys_passed(ibus.state.pointer) >= count {
                    askPanel(now, afresh: true)
                    phase = .panel(reached: true)
                    continue
                }
                // A slow answer from the panel: GNOME Shell was busy meanwhile, and that time is added.
                if let busy = panelAnswered(now), busy >= Self.busy {
                    end += busy
                    tellDaemon = true
                }
                if now >= min(end, limit) {
                    var recent = [CChar](repeating: 0, count: 256)
                    khi_describe_recent_keys(ibus.state.pointer, &recent, recent.count)
                    Log.info("IBus passed \(khi_keys_passed(ibus.state.pointer)) of the \(count) keys before the character"
                             + " (the last it was asked about, v down, ^ up, r a repeat, * unanswered: \(String(decoding: recent.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))")
                    askPanel(now, afresh: true)
                    phase = .panel(reached: false)
                    continue
                }
                if now >= sliceEnd {
                    askPanel(now)
                    sliceEnd = now + Self.slice
                }
                phase = .keys(count: count, end: end, limit: limit, sliceEnd: sliceEnd)
                return waiting(until: min(end, limit, sliceEnd))
            case .panel(let reached):
                guard let busy = panelAnswered(now) else { return waiting(until: nil) }
                if busy >= Self.busy { tellDaemon = true }
                try seat.startRoundTrip()
                let queued = Int(khi_recent_answers(ibus.state.pointer, now - Self.queueWindow))
                phase = .compositor(remaining: Self.roundTrips + queued, reached: reached)
            case .compositor(let remaining, let reached):
                guard seat.roundTripAnswered else { return waiting(until: nil) }
                if remaining > 1 {
                    try seat.startRoundTrip()
                    phase = .compositor(remaining: remaining - 1, reached: reached)
                } else {
                    phase = .settle(until: now + Self.settle, reached: reached)
                }
            case .settle(let until, let reached):
                guard now >= until else { return waiting(until: until) }
                var passedAt: Int64 = 0
                let edit = Int32(khi_last_edit(ibus.state.pointer, &passedAt))
                guard let program, edit != Int32(KHI_EDIT_NONE), program.focusedSpeaks, program.ask() else {
                    phase = .idle
                    return .done(reached: reached)
                }
                phase = .program(deleted: edit == Int32(KHI_EDIT_DELETE), passedAt: passedAt, end: now + Self.busyLimit,
                                 answeredAt: nil, reached: reached)
            case .program(let deleted, let passedAt, let end, var answeredAt, let reached):
                guard let program else { phase = .idle; return .done(reached: reached) }
                let changedAt = program.changedAt(deleted: deleted)
                if answeredAt == nil, program.answered { answeredAt = now }
                let quiet = answeredAt.map { now >= $0 + Self.quiet } ?? false
                if changedAt >= passedAt || quiet || now >= end {
                    Log.debug(changedAt >= passedAt ? "the program said its text changed \(changedAt - passedAt) µs after the keys passed IBus"
                              : quiet ? "the program answered but said nothing of its text" : "the program did not answer within \(end - passedAt) µs")
                    phase = .idle
                    return .done(reached: reached)
                }
                // CharacterTyper tells the daemon every second that the character still waits.
                phase = .program(deleted: deleted, passedAt: passedAt, end: end, answeredAt: answeredAt, reached: reached)
                return waiting(until: answeredAt.map { $0 + Self.quiet } ?? end)
            }
        }
    }

    private func waiting(until: Int64?) -> OrderingState {
        defer { tellDaemon = false }
        return .waiting(until: until, tellDaemon: tellDaemon)
    }

    /// Starts a round trip to the panel unless one is under way; `afresh`: one sent now in any
    /// case (only its answer proves what was answered before it is back in GNOME Shell's queue;
    /// one under way is then forgotten).
    private func askPanel(_ now: Int64, afresh: Bool = false) {
        guard panelAskedAt == nil || afresh else { return }
        panelAskedAt = khi_sync_panel_start(ibus.state.pointer) == 0 ? now : nil
    }

    /// How long the round trip to the panel took, once answered (then it is over); nil while
    /// under way or when none is.
    private func panelAnswered(_ now: Int64) -> Int64? {
        guard let asked = panelAskedAt else { return khi_ready(ibus.state.pointer) == 1 ? nil : 0 }
        guard khi_sync_panel_done(ibus.state.pointer) != 0 else { return nil }
        panelAskedAt = nil
        return now - asked
    }

    /// The wait for keys typed into a text input: GNOME Shell in a QEMU guest handed a key to its
    /// program 0.9-1.2 s after its press at the median, 2 s at worst, where it does not look busy
    /// (its IBus panel answers at once); past the 1 s wait a pick's é went ahead of its BackSpace.
    static let focusedTimeout: Int64 = 4_000_000
    /// Round trips to the compositor after the panel's answer, beyond one per key event IBus
    /// answered within `queueWindow` (every answered key event, an autorepeat's too, goes back
    /// into mutter's queue). mutter 43 answers a round trip only once that queue is empty (its
    /// backend source has a higher priority than its Wayland source), so the first already waits
    /// for it; the rest are time. What they cannot order, a program that reads the keys and the
    /// commit in one dispatch, the program's word does.
    static let roundTrips = 2
    /// Key events answered longer ago than this are taken to have left mutter's queue.
    static let queueWindow: Int64 = 2_000_000
    /// After the compositor's round trips, for its event queue.
    static let settle: Int64 = 20_000
    /// A round trip to the panel goes out after each slice of the wait for keys without them.
    static let slice: Int64 = 200_000
    /// A round trip this slow means the panel's main loop was busy (GNOME Shell in an idle QEMU
    /// guest: 10 ms at the least, 33 ms at the median; beside a busy loop, 187 ms at the median).
    static let busy: Int64 = 50_000
    /// The longest a character waits for the keys before it while the desktop is busy, and again
    /// for a busy program's word (the daemon waits up to 10 s while the companion says it still
    /// waits).
    static let busyLimit: Int64 = 8_000_000
    /// A program that answered a call sent once the keys were in its socket has handled them:
    /// what it says of its text comes before the answer, or just after it (the same loop pass).
    static let quiet: Int64 = 100_000
}
