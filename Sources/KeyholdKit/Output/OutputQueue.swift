/// Everything Keyhold types, in order, paced onto the device so that no burst overruns a reader.
///
/// A desktop reads the virtual keyboard through evdev, whose per-client buffer holds 64 events;
/// each key transition is two (EV_KEY and SYN_REPORT). A long binding or a character typed
/// through a Unicode method is dozens of transitions written at once: past the buffer the
/// reader gets SYN_DROPPED and characters vanish. So at most `burst` transitions go out within
/// any `pause`; the rest waits here, in order, for `nextDeadline`, which the daemon's timer
/// meets. Nothing sleeps: a key typed at normal speed goes straight through.
///
/// The queue reads time from its clock (the daemon's monotonic clock, a virtual one in tests).
public final class OutputQueue: KeyEventOutput {
    public struct Pacing: Hashable, Sendable {
        /// Transitions written back to back at most.
        public var burst: Int
        /// After a full burst, the next waits this long (microseconds) for readers to drain.
        public var pauseMicroseconds: Int
        /// At least this long between any two transitions (`[output] pace_us`); 0: bursts only.
        public var paceMicroseconds: Int

        /// 4 transitions (8 evdev events, an eighth of a reader's buffer), then 8 ms: 500
        /// transitions a second, so a reader may stall for 60 ms before its buffer fills. The
        /// X server in the QEMU desktop suite lost events (SYN_DROPPED) at 8 per 4 ms on a busy
        /// CI machine. Typing is never slowed by it; a 200-character binding with accents typed
        /// through `ctrl-shift-u` takes about 1.5 s.
        public init(burst: Int = 4, pauseMicroseconds: Int = 8_000, paceMicroseconds: Int = 0) {
            self.burst = max(1, burst)
            self.pauseMicroseconds = max(0, pauseMicroseconds)
            self.paceMicroseconds = max(0, paceMicroseconds)
        }
    }

    public var pacing: Pacing
    private let sink: KeyEventOutput
    private let clock: () -> Timestamp
    /// Waiting transitions, oldest first, from `head` on.
    private var waiting: [(key: KeyCode, state: KeyState)] = []
    private var head = 0
    /// The current burst: when it began and how many transitions it wrote; nil before any.
    private var burstStart: Timestamp?
    private var burstCount = 0
    private var lastWrite: Timestamp?

    public init(sink: KeyEventOutput, pacing: Pacing = Pacing(), clock: @escaping () -> Timestamp) {
        self.sink = sink
        self.pacing = pacing
        self.clock = clock
        waiting.reserveCapacity(256)
    }

    /// Transitions not yet written.
    public var count: Int { waiting.count - head }
    public var isEmpty: Bool { head == waiting.count }

    /// Queues one transition and writes what may go out now.
    public func send(_ key: KeyCode, _ state: KeyState) {
        if isEmpty, admit(at: clock()) {
            write(key, state)
            return
        }
        waiting.append((key, state))
        drain()
    }

    /// Writes what may go out now; the rest waits for `nextDeadline`.
    public func drain() {
        let now = clock()
        while !isEmpty, admit(at: now) {
            let next = waiting[head]
            head += 1
            write(next.key, next.state)
        }
        if isEmpty {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        }
    }

    /// Writes everything now, unpaced: for shutdown, when the releases must go out before the
    /// device does.
    public func drainAll() {
        while !isEmpty {
            let next = waiting[head]
            head += 1
            write(next.key, next.state)
        }
        waiting.removeAll(keepingCapacity: true)
        head = 0
    }

    /// When the next waiting transition may go out; nil when nothing waits.
    public var nextDeadline: Timestamp? {
        guard !isEmpty, let lastWrite, let burstStart else { return isEmpty ? nil : clock() }
        var due = burstCount >= pacing.burst ? burstStart.adding(microseconds: pacing.pauseMicroseconds) : lastWrite
        if pacing.paceMicroseconds > 0 { due = max(due, lastWrite.adding(microseconds: pacing.paceMicroseconds)) }
        return due
    }

    /// Whether a transition may be written at `now`, starting a new burst when the last one's
    /// pause is over.
    private func admit(at now: Timestamp) -> Bool {
        if pacing.paceMicroseconds > 0, let lastWrite, now < lastWrite.adding(microseconds: pacing.paceMicroseconds) {
            return false
        }
        if burstStart.map({ now >= $0.adding(microseconds: pacing.pauseMicroseconds) }) ?? true {
            burstStart = now
            burstCount = 0
        }
        return burstCount < pacing.burst
    }

    private func write(_ key: KeyCode, _ state: KeyState) {
        burstCount += 1
        lastWrite = clock()
        sink.send(key, state)
    }
}
