import KeyholdKit
import KeyholdLinux

/// Types what the daemon hands the companion, one character (a text, in fact: what one batch of
/// keys typed) at a time and in order, as a state machine the companion's loop drives: it waits
/// for the keys Keyhold wrote before the character to reach the desktop (`KeyOrdering`), commits
/// it (`CommitSurface`), says so at once (`typed`, not yet delivered: killed now, the daemon
/// knows the character is on its way and does not type it again), and once the desktop has
/// handled it, acknowledges it (`typed`, delivered), which lets what follows it go. Nothing here
/// waits: `advance` is called whenever the loop wakes, and says when it must be called at the latest.
final class CharacterTyper {
    private struct Character {
        let id: UInt64
        let scalars: [Unicode.Scalar]
        /// How many of them went (XTest may have to wait for a keycode in between).
        var typed = 0
        let after: UInt64
        let writtenAt: Int64?
        /// When the daemon last heard of it (µs): the hand-off, or the last `waiting`.
        var toldAt: Int64 = 0
    }

    private enum Step: Equatable {
        case ordering
        case committing(retryAt: Int64?)
        case delivering
    }

    private let surface: CommitSurface
    private let ordering: KeyOrdering
    private var waiting: [Character] = []
    private var current: (character: Character, step: Step)?
    /// Whether the desktop's deliveries of the virtual keyboard's keys are followed; without it a
    /// character waits for nothing but the daemon's own pause.
    var followsVirtualKeyboard = false
    /// Sends a request to the daemon; false when the connection is gone.
    var send: (CompanionRequest) -> Bool = { _ in false }
    /// Whether the daemon closed the connection: it gives up on a companion that answers late and
    /// types the character itself, so typing it too would type it twice.
    var daemonGone: () -> Bool = { true }

    init(surface: CommitSurface, ordering: KeyOrdering) {
        self.surface = surface
        self.ordering = ordering
    }

    /// How often a character still waiting for the keys before it tells the daemon so (µs).
    static let stillWaitingEvery: Int64 = 1_000_000

    /// Whether a character is under way.
    var isBusy: Bool { current != nil }

    /// The daemon's `type` event: `text` once the desktop has delivered `after` of the virtual
    /// keyboard's transitions since the last character, the last of them written at `writtenAt`.
    func type(_ text: String, id: UInt64, after: UInt64, writtenAt: Int64?, now: Int64) throws(DisplayLost) {
        Log.debug("type request \(id)")   // never what it is
        waiting.append(Character(id: id, scalars: Array(text.unicodeScalars), after: after, writtenAt: writtenAt))
        _ = try advance(now: now)
    }

    /// The daemon is gone (it gave up on a late answer and types the character itself): nothing
    /// more is typed of what it handed over.
    func forget() {
        waiting.removeAll()
        current = nil
    }

    /// Follows Keyhold's virtual keyboard afresh (on connecting, and when the session comes in
    /// front: its display server may not have been reading the device meanwhile).
    func follow(device name: String) {
        followsVirtualKeyboard = ordering.follow(device: name)
    }

    /// Moves the character under way on as far as it can go at `now` (µs); returns when to be
    /// called again at the latest (nil: when the loop next wakes).
    func advance(now: Int64) throws(DisplayLost) -> Int64? {
        while true {
            if current == nil {
                guard !waiting.isEmpty else { return nil }
                let next = waiting.removeFirst()
                if followsVirtualKeyboard && next.after > 0 {
                    try ordering.start(count: next.after, writtenAt: next.writtenAt, now: now)
                    var next = next
                    next.toldAt = now
                    current = (next, .ordering)
                } else {
                    current = (next, .committing(retryAt: nil))
                }
            }
            guard let under = current else { return nil }
            var character = under.character, step = under.step
            switch step {
            case .ordering:
                switch try ordering.check(now: now) {
                case .waiting(let until, let tellDaemon):
                    // The daemon gives a silent companion 3 s: a wait that goes on (a busy desktop
                    // answering late) says so every second, up to the daemon's own limit.
                    if tellDaemon || now - character.toldAt >= Self.stillWaitingEvery {
                        _ = send(.waiting(id: character.id))
                        character.toldAt = now
                        current = (character, step)
                    }
                    return min(until ?? .max, character.toldAt + Self.stillWaitingEvery)
                case .done(let reached):
                    if !reached {
                        Log.warning("the display server had not delivered the keys before a character in time "
                                    + "(\(orderTimeoutMicroseconds / 1000) ms, more while it was busy); typing it anyway")
                    }
                    step = .committing(retryAt: nil)
                }
            case .committing(let retryAt):
                if let retryAt, now < retryAt { return retryAt }
                if daemonGone() { forget(); return nil }
                switch try surface.commit(character.scalars[character.typed...]) {
                case .refused:
                    // Not typed (IBus: no application's text input has the focus): the daemon
                    // types it with its own method, in order.
                    current = nil
                    _ = send(.untyped(id: character.id))
                    continue
                case .wait(let typed, let nanoseconds):
                    character.typed += typed
                    let retry = now + (nanoseconds + 999) / 1000
                    current = (character, .committing(retryAt: retry))
                    return retry
                case .committed:
                    // Written, and said so at once; then the proof it was handled.
                    guard send(.typed(id: character.id, delivered: false)) else { forget(); return nil }
                    try surface.startDelivery()
                    step = .delivering
                }
            case .delivering:
                guard surface.delivered else { current = (character, step); return nil }
                // The daemon writes nothing until it has the answer: the next count starts here.
                ordering.resetCount()
                current = nil
                guard send(.typed(id: character.id, delivered: true)) else { forget(); return nil }
                continue
            }
            current = (character, step)
        }
    }
}
