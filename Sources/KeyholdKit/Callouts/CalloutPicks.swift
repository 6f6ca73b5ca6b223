/// The order a callout shows its candidates in (`[callouts] order`).
public enum CalloutOrder: String, CaseIterable, Hashable, Sendable {
    /// The locales' order: a candidate's number never moves, as on macOS.
    case locale
    /// The user's most-picked candidates first, the rest in the locales' order.
    case frequent
}

/// How many times the user picked each callout candidate: what `CalloutOrder.frequent` orders
/// by. In that order the callout context counts a pick as it closes on a candidate (the locales'
/// order counts nothing); the daemon keeps the counts
/// of the user in front only, in memory (their companion keeps them in their home and hands them
/// over, `keyhold picks`), and they are never logged.
///
/// A candidate is counted in lower case, so that picking É also moves é up. Bounded: at most
/// `capacity` candidates (the least picked go first when a new one comes) and `maximumCount`
/// picks each.
public final class CalloutPicks {
    public static let capacity = 256
    public static let maximumCount = 1_000_000
    /// A candidate counted: at most this many UTF-8 bytes (a character with its marks).
    public static let maximumCandidateBytes = 32

    public private(set) var counts: [String: Int] = [:]

    public init(counts: [String: Int] = [:]) { replace(with: counts) }

    /// The key `candidate` is counted under; nil for one that is not counted (empty, too long).
    public static func key(of candidate: String) -> String? {
        guard !candidate.isEmpty, candidate.utf8.count <= maximumCandidateBytes else { return nil }
        let lower = candidate.lowercased()
        return lower.count == candidate.count ? lower : candidate
    }

    public func count(of candidate: String) -> Int { Self.key(of: candidate).flatMap { counts[$0] } ?? 0 }

    /// One more pick of `candidate`.
    public func record(_ candidate: String) {
        guard let key = Self.key(of: candidate) else { return }
        if counts[key] == nil && counts.count >= Self.capacity { dropLeastPicked() }
        counts[key] = min((counts[key] ?? 0) + 1, Self.maximumCount)
    }

    /// `candidates` with the most picked first; those picked as often (or never) keep their order.
    public func ordered(_ candidates: [String]) -> [String] {
        guard !counts.isEmpty else { return candidates }
        let picked = candidates.map { count(of: $0) }
        guard picked.contains(where: { $0 > 0 }) else { return candidates }
        return candidates.indices.sorted { picked[$0] != picked[$1] ? picked[$0] > picked[$1] : $0 < $1 }.map { candidates[$0] }
    }

    /// The counts from elsewhere (the companion's file), taken within the bounds: the most picked
    /// `capacity` candidates, each counted once under its key.
    public func replace(with counts: [String: Int]) {
        var merged: [String: Int] = [:]
        for (candidate, n) in counts where n > 0 {
            guard let key = Self.key(of: candidate) else { continue }
            merged[key] = min((merged[key] ?? 0) + n, Self.maximumCount)
        }
        if merged.count > Self.capacity {
            merged = Dictionary(uniqueKeysWithValues: Self.sorted(merged).prefix(Self.capacity).map { ($0.candidate, $0.count) })
        }
        self.counts = merged
    }

    public func removeAll() { counts.removeAll() }

    /// The counts, the most picked first (then by candidate, for a stable listing).
    public var sorted: [(candidate: String, count: Int)] { Self.sorted(counts) }

    private static func sorted(_ counts: [String: Int]) -> [(candidate: String, count: Int)] {
        counts.map { (candidate: $0.key, count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.candidate < $1.candidate }
    }

    /// Makes room: the least picked quarter goes (ties: the later in `sorted`).
    private func dropLeastPicked() {
        for (candidate, _) in sorted.suffix(Self.capacity / 4) { counts[candidate] = nil }
    }
}
