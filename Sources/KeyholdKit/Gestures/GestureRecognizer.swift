/// Turns key timing into gestures for the keys the engine handles. Driven only by event times and
/// `now`: the caller fires due deadlines with `nextDue(at:)` before handling each later event.
public struct GestureRecognizer {
    public var settings: GestureSettings

    private struct HeldKey {
        var key: KeyCode
        var longPressAt: Int64?
        var repeatAt: Int64?
    }
    /// Handled keys currently down; a handful at most, so a linear scan beats any index.
    private var held: [HeldKey] = []
    /// The last handled key released and when, for double taps: a tap of the same key within
    /// the interval, with no other key pressed in between (AltGr+7 then AltGr+0 is no double tap
    /// of AltGr), completes one.
    private var lastTap: (key: KeyCode, time: Int64)?

    public init(settings: GestureSettings = GestureSettings()) {
        self.settings = settings
        held.reserveCapacity(16)
    }

    /// A handled key went down. Schedules its long press and/or repeat.
    public mutating func press(_ key: KeyCode, at time: Timestamp, longPress: Bool, repeats: Bool) {
        if let tap = lastTap, tap.key != key { lastTap = nil }
        if !held.isEmpty { held.removeAll { $0.key == key } }
        let t = time.microseconds
        held.append(HeldKey(
            key: key,
            longPressAt: longPress ? t + Int64(settings.longPressDelay) * 1000 : nil,
            repeatAt: repeats ? t + Int64(settings.repeatDelay) * 1000 : nil))
    }

    /// Another key went down: rollover cancels the pending long press and the repeat of every
    /// held key (only the newest key repeats, as the kernel does), and a pending double tap of
    /// another key than `key`.
    public mutating func otherKeyPressed(_ key: KeyCode? = nil) {
        if let tap = lastTap, tap.key != key { lastTap = nil }
        guard !held.isEmpty else { return }
        for i in held.indices { held[i].longPressAt = nil; held[i].repeatAt = nil }
    }

    /// A handled key went up; returns whether this release completes a double tap.
    public mutating func release(_ key: KeyCode, at time: Timestamp) -> Bool {
        held.removeAll { $0.key == key }
        let t = time.microseconds
        if let tap = lastTap, tap.key == key, t - tap.time <= Int64(settings.doubleTapInterval) * 1000 {
            lastTap = nil
            return true
        }
        lastTap = (key, t)
        return false
    }

    /// Forgets a key without a release gesture (its device vanished).
    public mutating func cancel(_ key: KeyCode) { held.removeAll { $0.key == key } }
    public mutating func cancelAll() { held.removeAll(keepingCapacity: true) }

    /// Whether any handled key is held (else no gesture can be due).
    public var isTracking: Bool { !held.isEmpty }

    /// The earliest pending deadline, for the daemon's timer.
    public var nextDeadline: Timestamp? {
        guard !held.isEmpty else { return nil }   // most keys: nothing held is handled
        var next = Int64.max
        for h in held {
            if let d = h.longPressAt, d < next { next = d }
            if let d = h.repeatAt, d < next { next = d }
        }
        return next == .max ? nil : Timestamp(microseconds: next)
    }

    /// Pops the earliest gesture due at or before `now`, with its exact deadline time.
    public mutating func nextDue(at now: Timestamp) -> (key: KeyCode, gesture: KeyboardGesture, time: Timestamp)? {
        guard let deadline = nextDeadline, deadline <= now else { return nil }
        let d = deadline.microseconds
        for i in held.indices {
            if held[i].longPressAt == d {
                held[i].longPressAt = nil
                return (held[i].key, .longPress, deadline)
            }
            if held[i].repeatAt == d {
                held[i].repeatAt = d + Int64(max(1, settings.repeatInterval)) * 1000
                return (held[i].key, .repeatPress, deadline)
            }
        }
        return nil
    }
}
