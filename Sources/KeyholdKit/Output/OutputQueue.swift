/// The session companion as the queue sees it: it types text through the desktop and calls the
/// queue's `acknowledge(_:)` with the same id once the desktop has it. `after`: how many key
/// transitions the queue had written to the device by then (`writtenCount`); the companion types
/// only once the desktop has delivered those (an X server reads the device on its own thread).
/// `keysWrittenAt`: when the last of them that changes text was written (nil when none did since
/// the last hand-off: a modifier, a function key or a shortcut may change nothing, and get no
/// answer), for a companion that waits for the program's own answer to them (KWin's input
/// method, fcitx5).
public protocol OutputCompanion: AnyObject {
    func type(_ text: String, id: UInt64, after: UInt64, keysWrittenAt: Timestamp?)
    /// Whether it commits whole strings to the focused program (an input method such as IBus)
    /// rather than typing them as key events of its own.
    var commitsText: Bool { get }
    /// Whether the desktop starts it again at once when it goes (KWin restarts its input method):
    /// text then waits `companionReturnMicroseconds` for it instead of taking a fallback that
    /// programs there may not read.
    var restartedWhenGone: Bool { get }
}

extension OutputCompanion {
    public var commitsText: Bool { false }
    public var restartedWhenGone: Bool { false }
}

/// Everything Keyhold types, in order: key transitions for the virtual keyboard and characters
/// for the session companion, paced so that no burst overruns a reader.
///
/// Order: a character handed to the companion goes out only after the key events before it have
/// had `handOffSettleMicroseconds` to reach the desktop, and everything after it waits for the
/// companion's acknowledgement, so nothing typed later overtakes it. A companion that does not
/// answer within its deadline is reported through `onCompanionTimeout` (the daemon drops it) and
/// the character is typed with its fallback key events instead, unless the companion had said it
/// wrote it to the desktop; without a companion the fallback is used at once.
///
/// Pacing: a desktop reads the virtual keyboard through evdev, whose per-client buffer holds a
/// fixed number of events (64 for a keyboard; Keyhold's virtual keyboard asks for 1024); each
/// key transition is two (EV_KEY and SYN_REPORT). A long binding or a character typed through a
/// Unicode method is dozens of transitions written at once: past the buffer the reader gets
/// SYN_DROPPED and characters vanish. So at most `burst` transitions go out within any `pause`;
/// the rest waits here for `nextDeadline`, which the daemon's timer meets. Nothing sleeps: a key
/// typed at normal speed goes straight through.
///
/// The queue reads time from its clock (the daemon's monotonic clock, a virtual one in tests).
public final class OutputQueue: TextHandOffOutput {
    public struct Pacing: Hashable, Sendable {
        /// Transitions written back to back at most.
        public var burst: Int
        /// After a full burst, the next waits this long (microseconds) for readers to drain.
        public var pauseMicroseconds: Int
        /// At least this long between any two transitions (`[output] pace_us`); 0: bursts only.
        public var paceMicroseconds: Int

        /// 2 transitions (4 evdev events), then 8 ms: 250 transitions a second, so a reader may
        /// stall for 120 ms before a 64-event buffer fills, 2 s before the virtual keyboard's
        /// 1024 do (xdotool and ydotool type slower still, 12 ms per key). The X server in the
        /// QEMU desktop suite lost events (SYN_DROPPED) at 8 per 4 ms on a busy CI machine, once
        /// in eight runs at 4 per 8 ms, and once at this pace with 64 events: its input thread
        /// waits while the main thread renders. Typing is never slowed by it; a 200-character
        /// binding with accents through `ctrl-shift-u` takes about 3 s.
        public init(burst: Int = 2, pauseMicroseconds: Int = 8_000, paceMicroseconds: Int = 0) {
            self.burst = max(1, burst)
            self.pauseMicroseconds = max(0, pauseMicroseconds)
            self.paceMicroseconds = max(0, paceMicroseconds)
        }
    }

    private enum Item {
        case key(KeyTransition)
        case text(String, fallback: [KeyTransition])
    }

    public var pacing: Pacing
    /// The companion of the session the keystrokes go to; nil: fallbacks are typed (after
    /// `companionReturnMicroseconds` when the last one is restarted by the desktop).
    public weak var companion: OutputCompanion? {
        didSet { if companion != nil { returnDeadline = nil } }
    }
    /// How long text waits for a companion the desktop restarts (`restartedWhenGone`) to come
    /// back before its fallback is typed.
    public var companionReturnMicroseconds = 2_000_000
    /// Until when text waits for the companion that went to come back.
    private var returnDeadline: Timestamp?
    /// Called once when the companion misses a deadline, before the fallback is typed.
    public var onCompanionTimeout: ((OutputCompanion) -> Void)?
    /// How long key events written before a hand-off get to reach the desktop's reader (an X
    /// server reads evdev on its own thread; the companion's events take another way in). The
    /// companion also waits for proof the keys arrived (X11: their count; Wayland: a round trip
    /// to the compositor, which has read them by its answer); this pause is for a companion
    /// that can do neither.
    public var handOffSettleMicroseconds = 5_000
    /// How long the companion has to acknowledge one character, or to say it still waits
    /// (`companionWaits`): more than it waits for a desktop that is not busy to deliver the keys
    /// before it (`keyhold-session` waits 1 s, and longer only while the desktop is busy), with
    /// room for a compositor that a loaded machine runs late (in a loaded CI run, sway's
    /// companion once answered later than the 1.5 s this was).
    public var acknowledgementTimeoutMicroseconds = 3_000_000
    /// The longest a character waits for its companion, however often it says it still waits: a
    /// loaded machine's desktop can be busy for seconds (GNOME Shell under QEMU: 2 s), and the
    /// character then goes in order; a stuck one does not hold the keyboard for longer.
    public var acknowledgementLimitMicroseconds = 10_000_000
    /// Keys whose transitions `writtenCount` leaves out: those the desktop never delivers, so
    /// the companion cannot see them arrive (a set, not a test to call, on every key written).
    public var uncountedKeys = OutputKeyState()

    private let sink: KeyEventOutput
    private let clock: () -> Timestamp
    /// Waiting items, oldest first, from `head` on.
    private var waiting: [Item] = []
    private var head = 0
    /// The current burst: when it began and how many transitions it wrote; nil before any.
    private var burstStart: Timestamp?
    private var burstCount = 0
    private var lastWrite: Timestamp?
    /// When the last key press that changes text was written since the last hand-off.
    private var lastEditWrite: Timestamp?
    /// Ctrl, Alt and Meta keys written down and not yet up (a typing key is a shortcut then).
    private var shortcutKeysDown = 0
    /// The hand-off the companion has not acknowledged yet.
    private var inFlight: (id: UInt64, sent: Timestamp, deadline: Timestamp, text: String, fallback: [KeyTransition],
                           companion: OutputCompanion, written: Bool)?
    /// The last acknowledgements' round trips (hand-off to acknowledgement, µs), a ring.
    private var roundTrips = [Int64](repeating: 0, count: 256)
    private var roundTripCount = 0
    private var nextID: UInt64 = 1

    public init(sink: KeyEventOutput, pacing: Pacing = Pacing(), clock: @escaping () -> Timestamp) {
        self.sink = sink
        self.pacing = pacing
        self.clock = clock
        waiting.reserveCapacity(256)
    }

    /// Items not yet written or handed off (the one in flight not counted).
    public var count: Int { waiting.count - head }
    public var isEmpty: Bool { head == waiting.count }
    /// Key transitions written to the device so far (but those of `uncountedKeys`).
    public private(set) var writtenCount: UInt64 = 0
    /// Whether a hand-off waits for the companion's acknowledgement.
    public var isAwaitingCompanion: Bool { inFlight != nil }

    /// Queues one transition and writes what may go out now.
    public func send(_ key: KeyCode, _ state: KeyState) {
        if isEmpty, inFlight == nil, case let now = clock(), admit(at: now) {
            write(KeyTransition(key, state), at: now)
            return
        }
        waiting.append(.key(KeyTransition(key, state)))
        drain()
    }

    /// Queues text for the companion. It goes at the next `drain` (the daemon drains after every
    /// batch), so what one batch types with nothing between goes to the companion as one text: one
    /// round trip, and one commit where the companion is an input method (GTK 3 under GNOME Shell
    /// dropped a commit that came before it had answered the one before).
    public func handOff(_ text: String, fallback: [KeyTransition]) {
        if head < waiting.count, case .text(let queued, let queuedFallback) = waiting[waiting.count - 1] {
            waiting[waiting.count - 1] = .text(queued + text, fallback: queuedFallback + fallback)
            return
        }
        waiting.append(.text(text, fallback: fallback))
    }

    public var companionCommitsText: Bool { companion?.commitsText ?? false }

    /// The companion has `id`: what waited behind it may go.
    public func acknowledge(_ id: UInt64) {
        guard let inFlight, inFlight.id == id else { return }
        self.inFlight = nil
        roundTrips[roundTripCount % roundTrips.count] = clock().microseconds - inFlight.sent.microseconds
        roundTripCount += 1
        drain()
    }

    /// The companion has written `id` to the desktop (not yet delivered): if it goes now, the
    /// character is on its way and is not typed again.
    public func companionWrote(_ id: UInt64) {
        if inFlight?.id == id { inFlight?.written = true }
    }

    /// The companion still waits for a busy desktop before typing `id`: its deadline moves on,
    /// up to `acknowledgementLimitMicroseconds` after the hand-off.
    public func companionWaits(_ id: UInt64) {
        guard let flight = inFlight, flight.id == id else { return }
        let limit = flight.sent.adding(microseconds: acknowledgementLimitMicroseconds)
        inFlight?.deadline = min(clock().adding(microseconds: acknowledgementTimeoutMicroseconds), limit)
    }

    /// The companion cannot type `id` (no program takes text from it now): its fallback key
    /// events go in its place, before anything that waited behind it.
    public func companionCouldNotType(_ id: UInt64) {
        guard let inFlight, inFlight.id == id else { return }
        self.inFlight = nil
        insertAtHead(inFlight.fallback)
        drain()
    }

    /// The companion went away: what it had not written to the desktop is typed with key events,
    /// or, when the desktop restarts it, waits for it to come back (`companionReturnMicroseconds`).
    public func companionGone(_ gone: OutputCompanion) {
        let waits = gone.restartedWhenGone
        if companion === gone {
            companion = nil
            if waits { returnDeadline = clock().adding(microseconds: companionReturnMicroseconds) }
        }
        guard let inFlight, inFlight.companion === gone else { return }
        self.inFlight = nil
        if !inFlight.written {
            if waits { waiting.insert(.text(inFlight.text, fallback: inFlight.fallback), at: head) }
            else { insertAtHead(inFlight.fallback) }
        }
        drain()
    }

    /// Writes and hands off what may go out now; the rest waits for `nextDeadline`.
    public func drain() {
        guard inFlight != nil || !waiting.isEmpty else { return }   // the daemon drains after every batch
        let now = clock()
        if let flight = inFlight {
            guard now >= flight.deadline else { return }
            inFlight = nil
            onCompanionTimeout?(flight.companion)
            if companion === flight.companion { companion = nil }
            if !flight.written { insertAtHead(flight.fallback) }
        }
        while !isEmpty {
            switch waiting[head] {
            case .key(let transition):
                guard admit(at: now) else { return }
                head += 1
                write(transition, at: now)
            case .text(let text, let fallback):
                guard let companion else {
                    if let returnDeadline, now < returnDeadline { return }
                    head += 1
                    insertAtHead(fallback)
                    continue
                }
                if let lastWrite, now < lastWrite.adding(microseconds: handOffSettleMicroseconds) { return }
                head += 1
                let id = nextID
                nextID &+= 1
                inFlight = (id, now, now.adding(microseconds: acknowledgementTimeoutMicroseconds), text, fallback, companion, false)
                let editedAt = lastEditWrite
                lastEditWrite = nil
                companion.type(text, id: id, after: writtenCount, keysWrittenAt: editedAt)
                if inFlight != nil { return }   // not acknowledged from within `type`
            }
        }
        compact()
    }

    /// How long the companion took to type a character, hand-off to acknowledgement (what a
    /// character typed through it adds to a key typed on the device), over the last 256:
    /// median and 99th percentile in microseconds; nil before any.
    public var companionRoundTrip: (p50: Int64, p99: Int64, count: Int)? {
        guard roundTripCount > 0 else { return nil }
        let samples = roundTrips.prefix(min(roundTripCount, roundTrips.count)).sorted()
        return (samples[samples.count / 2], samples[min(samples.count - 1, samples.count * 99 / 100)], roundTripCount)
    }

    /// Writes everything now, unpaced, with fallbacks for what the companion has not typed (not
    /// for a character it said it wrote: that one is on its way): for shutdown and sleep, when the
    /// releases must go out before the device goes.
    public func drainAll() {
        if let flight = inFlight {
            inFlight = nil
            if !flight.written { insertAtHead(flight.fallback) }
        }
        while !isEmpty {
            let item = waiting[head]
            head += 1
            switch item {
            case .key(let transition): write(transition, at: clock())
            case .text(_, let fallback): for t in fallback { write(t, at: clock()) }
            }
        }
        compact()
    }

    /// When the queue must be drained again: the next transition's slot, the settle time before
    /// a hand-off, or the companion's deadline; nil when nothing waits.
    public var nextDeadline: Timestamp? {
        if let inFlight { return inFlight.deadline }
        guard !isEmpty else { return nil }
        if case .text = waiting[head], companion == nil { return max(returnDeadline ?? clock(), clock()) }
        guard let lastWrite, let burstStart else { return clock() }
        if case .text = waiting[head] {
            return lastWrite.adding(microseconds: handOffSettleMicroseconds)
        }
        var due = burstCount >= pacing.burst ? burstStart.adding(microseconds: pacing.pauseMicroseconds) : lastWrite
        if pacing.paceMicroseconds > 0 { due = max(due, lastWrite.adding(microseconds: pacing.paceMicroseconds)) }
        return due
    }

    private func insertAtHead(_ transitions: [KeyTransition]) {
        guard !transitions.isEmpty else { return }
        waiting.replaceSubrange(head..<head, with: transitions.map { .key($0) })
    }

    private func compact() {
        if isEmpty && head > 0 {   // (head 0 and empty: nothing to drop)
            waiting.removeAll(keepingCapacity: true)
            head = 0
        }
    }

    /// Whether a transition may be written at `now`, starting a new burst when the last one's
    /// pause is over.
    @inline(__always) private func admit(at now: Timestamp) -> Bool {
        if pacing.paceMicroseconds > 0, let lastWrite, now < lastWrite.adding(microseconds: pacing.paceMicroseconds) {
            return false
        }
        if burstStart.map({ now >= $0.adding(microseconds: pacing.pauseMicroseconds) }) ?? true {
            burstStart = now
            burstCount = 0
        }
        return burstCount < pacing.burst
    }

    @inline(__always) private func write(_ transition: KeyTransition, at now: Timestamp) {
        burstCount += 1
        if !uncountedKeys.contains(transition.key) { writtenCount &+= 1 }
        lastWrite = now
        if transition.key.makesShortcuts {
            if transition.state == .down { shortcutKeysDown += 1 } else if transition.state == .up { shortcutKeysDown = max(0, shortcutKeysDown - 1) }
        } else if transition.state != .up, shortcutKeysDown == 0, transition.key.editsText {
            lastEditWrite = now
        }
        sink.send(transition.key, transition.state)
    }
}
