import KeyholdKit

/// Sessions whose companions miss their deadlines: the first miss drops the companion (its
/// character is typed with the fallback); a second in a row, with nothing answered in between,
/// benches the session's companions for `benchMicroseconds`, doubling with each miss after, up to
/// `benchLimitMicroseconds`. A companion that hangs, or one that connects again and hangs again,
/// then holds the keys typed after a character for its deadline once in that time, not at every
/// character (docs/SECURITY.md).
struct CompanionMisses {
    static let benchMicroseconds = 30_000_000
    static let benchLimitMicroseconds = 300_000_000

    private var sessions: [String: (count: Int, benchedUntil: Timestamp?)] = [:]

    /// A companion of `session` missed its deadline at `now`: until when the session is benched,
    /// or nil for a first miss.
    mutating func missed(_ session: String, at now: Timestamp) -> Timestamp? {
        var entry = sessions[session] ?? (0, nil)
        entry.count += 1
        if entry.count >= 2 {
            let bench = min(Self.benchMicroseconds << min(entry.count - 2, 8), Self.benchLimitMicroseconds)
            entry.benchedUntil = now.adding(microseconds: bench)
        }
        sessions[session] = entry
        return entry.benchedUntil
    }

    /// How many it missed in a row.
    func count(_ session: String) -> Int { sessions[session]?.count ?? 0 }

    /// A companion of `session` answered: its misses in a row are over (a bench in force stays).
    mutating func answered(_ session: String) {
        guard let entry = sessions[session] else { return }
        if entry.benchedUntil == nil { sessions[session] = nil } else { sessions[session]?.count = 0 }
    }

    /// Until when `session` types without a companion; nil: it does not.
    func benchedUntil(_ session: String, at now: Timestamp) -> Timestamp? {
        guard let until = sessions[session]?.benchedUntil, now < until else { return nil }
        return until
    }

    /// Ends the benches over by `now`; returns when the next one ends.
    mutating func expire(at now: Timestamp) -> Timestamp? {
        var next: Timestamp?
        for (session, entry) in sessions {
            guard let until = entry.benchedUntil else { continue }
            if until <= now {
                if entry.count == 0 { sessions[session] = nil } else { sessions[session]?.benchedUntil = nil }
            } else {
                next = min(next ?? until, until)
            }
        }
        return next
    }
}
