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
/// at all (a terminal may send nothing: then a moment; `ProgramTextAnswer`).
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
    private var answer = ProgramTextAnswer()

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
            let end = answer.end(writtenAt: writtenAt, now: now, lastUpdate: khim_last_state_update(im), focusGeneration: khim_focus_generation(im))
            phase = .answer(writtenAt: writtenAt, end: end)
            return check(now: now)
        case .answer(let writtenAt, let end):
            let answered = khim_last_state_update(im) >= writtenAt
            // CharacterTyper tells the daemon every second that the character still waits.
            if khim_active(im) == 1 && !answered && now < end { return .waiting(until: end, tellDaemon: false) }
            answer.finished(answered: answered, delay: khim_last_state_update(im) - writtenAt, focusGeneration: khim_focus_generation(im))
            Log.debug(answered ? "the program answered the keys \(khim_last_state_update(im) - writtenAt) µs after them"
                               : "the program did not answer the keys within \(end - writtenAt) µs")
            phase = .idle
            return .done(reached: true)
        }
    }
}
