import CSessionKWin
import KeyholdLinux

/// KDE Plasma (KWin's input method): the daemon's keys before a character reach the program as key
/// events, the character as a text-input commit, and nothing keeps the two in order. KWin reads
/// libinput on a thread of its own and handles what it read later on its main thread, so its
/// answer to a round trip does not prove it has passed the keys on; and Qt queues a key event it
/// reads but applies a commit at once, so a commit read in the same batch as the key before it
/// goes first (read in their sources; seen in CI: a pick left `e` then `xyz`, its é erased by the
/// Backspace meant for the e). So a character after keys also waits for the program's own word:
/// the text-input state update it sends once its text changed (KWin passes it on as
/// surrounding_text and commit_state): as long as the program is busy, if it speaks of its text
/// at all (a terminal may send nothing: then a moment, `answerWait`).
final class KWinOrdering: KeyOrdering {
    private let method: KWinSurface
    private let seat: WaylandDisplay

    private enum Phase: Equatable {
        case idle
        case roundTrip(writtenAt: Int64?)
        /// Until the program has sent a state update since `writtenAt`, or `end`.
        case answer(writtenAt: Int64, end: Int64)
    }
    private var phase = Phase.idle
    /// Whether the focused program let the last wait run out; reset when the focus moves
    /// (`khim_focus_generation`).
    private var ranOut = false
    private var focusGeneration: UInt32 = 0

    init(method: KWinSurface, seat: WaylandDisplay) {
        self.method = method
        self.seat = seat
    }

    func follow(device name: String) -> Bool { true }
    func resetCount() {}

    func start(count: UInt64, writtenAt: Int64?, now: Int64) throws(DisplayLost) {
        try seat.startRoundTrip()
        phase = .roundTrip(writtenAt: writtenAt)
    }

    func check(now: Int64) -> OrderingState {
        let im = method.state.pointer
        switch phase {
        case .idle:
            return .done(reached: true)
        case .roundTrip(let writtenAt):
            guard seat.roundTripAnswered else { return .waiting(until: nil, tellDaemon: false) }
            guard let writtenAt else { phase = .idle; return .done(reached: true) }
            if khim_focus_generation(im) != focusGeneration {
                focusGeneration = khim_focus_generation(im)
                ranOut = false
            }
            let end = if ranOut {
                min(writtenAt + Self.answerWait.silent, now + orderTimeoutMicroseconds)
            } else if khim_last_state_update(im) > 0 {
                writtenAt + Self.busyLimit
            } else {
                min(writtenAt + Self.answerWait.unknown, now + orderTimeoutMicroseconds)
            }
            phase = .answer(writtenAt: writtenAt, end: end)
            return check(now: now)
        case .answer(let writtenAt, let end):
            let answered = khim_last_state_update(im) >= writtenAt
            // CharacterTyper tells the daemon every second that the character still waits.
            if khim_active(im) == 1 && !answered && now < end { return .waiting(until: end, tellDaemon: false) }
            if khim_focus_generation(im) == focusGeneration { ranOut = !answered }
            Log.debug(answered ? "the program answered the keys \(khim_last_state_update(im) - writtenAt) µs after them"
                               : "the program did not answer the keys within \(end - writtenAt) µs")
            phase = .idle
            return .done(reached: true)
        }
    }

    /// How long after its keys a character waits for the focused program's state update: for a
    /// program that speaks of its text (it has sent a state update since it got the focus), until
    /// it answers, however busy it is, up to `busyLimit` (the daemon waits 10 s while it is told
    /// the character still waits; Qt and GTK fields answered within 40 ms in the test guest, a
    /// stopped one as late as it was stopped); short for one that let the last wait run out
    /// without answering (Konsole sends nothing), between the two for one not heard yet.
    static let answerWait = (unknown: Int64(150_000), silent: Int64(40_000))
    static let busyLimit = Int64(8_000_000)
}
