import KeyholdLinux

/// fcitx5: the keys before a character reach fcitx5 (KWin hands them to its input method; a GTK or
/// Qt program to its fcitx5 module), which passes on those its engine does not take, while the
/// character is a commit to the input context. Keyhold's addon counts every key event that comes
/// to fcitx5, before the engine, and fcitx5 handles events and the addon's lines in one loop. So a
/// character waits until the keys before it have come to fcitx5, then for the answer to a `sync`
/// (fcitx5 has handled them and passed them on, and the compositor has handled what fcitx5 passed
/// on), then for the program's word that its text changed (`ProgramTextAnswer`: a program applies
/// a commit at once but queues the key events it reads; measured in KDE: a pick's é went ahead of
/// its BackSpace in a GTK entry and in Konsole without this wait; in Konsole, which says nothing,
/// once in CI with a wait of 40 ms, when the sync did not yet wait for KWin).
final class Fcitx5Ordering: KeyOrdering {
    private let link: Fcitx5Link

    private enum Phase: Equatable {
        case idle
        case keys(target: UInt64, end: Int64, writtenAt: Int64?)
        case sync(id: UInt64, reached: Bool, writtenAt: Int64?)
        /// Until the program has said its text changed since `writtenAt`, or `end`.
        case answer(writtenAt: Int64, end: Int64, reached: Bool)
    }
    private var phase = Phase.idle
    private var answer = ProgramTextAnswer()
    /// The addon's key count where the count for the next character starts.
    private var baseline: UInt64 = 0

    init(link: Fcitx5Link) { self.link = link }

    func follow(device name: String) -> Bool {
        resetCount()
        return true
    }

    func resetCount() {
        link.read()
        baseline = link.keys
    }

    func start(count: UInt64, writtenAt: Int64?, now: Int64) {
        link.read()
        // Keys typed where no input context has the focus (a game) never come to fcitx5: those
        // cost the short wait.
        let timeout = link.focus == .none ? orderTimeoutMicroseconds : IBusOrdering.focusedTimeout
        phase = .keys(target: baseline &+ count, end: now + timeout, writtenAt: writtenAt)
    }

    func check(now: Int64) -> OrderingState {
        link.read()
        while true {
            switch phase {
            case .idle:
                return .done(reached: true)
            case .keys(let target, let end, let writtenAt):
                // Without the addon the character is refused and the daemon types it, in order.
                guard link.isConnected else { phase = .idle; return .done(reached: true) }
                let reached = link.keys >= target
                guard reached || now >= end else { return .waiting(until: end, tellDaemon: false) }
                if !reached {
                    Log.info("fcitx5 had \(link.keys &- baseline) of the \(target &- baseline) keys before the character")
                }
                guard let id = link.sync() else { phase = .idle; return .done(reached: false) }
                phase = .sync(id: id, reached: reached, writtenAt: writtenAt)
            case .sync(let id, let reached, let writtenAt):
                guard link.synced >= id || !link.isConnected else { return .waiting(until: nil, tellDaemon: false) }
                guard let writtenAt, link.focus != .none else { phase = .idle; return .done(reached: reached) }
                let end = answer.end(writtenAt: writtenAt, now: now, lastUpdate: link.lastTextUpdate, focusGeneration: link.focusGeneration)
                phase = .answer(writtenAt: writtenAt, end: end, reached: reached)
            case .answer(let writtenAt, let end, let reached):
                let answered = link.lastTextUpdate >= writtenAt
                // CharacterTyper tells the daemon every second that the character still waits.
                if link.focus != .none && !answered && now < end { return .waiting(until: end, tellDaemon: false) }
                answer.finished(answered: answered, delay: link.lastTextUpdate - writtenAt, focusGeneration: link.focusGeneration)
                Log.debug(answered ? "the program answered the keys \(link.lastTextUpdate - writtenAt) µs after them"
                                   : "the program did not answer the keys within \(end - writtenAt) µs")
                phase = .idle
                return .done(reached: reached)
            }
        }
    }
}
