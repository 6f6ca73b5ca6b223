/// "Did you mean" suggestions for names typed by users (config keys, key names, actions).
public enum Suggestion {
    /// The candidate closest to `word` by edit distance, if close enough to be a likely typo.
    public static func nearest(to word: String, in candidates: some Sequence<String>) -> String? {
        let w = Array(word.lowercased())
        var best: (String, Int)?
        for candidate in candidates {
            let d = distance(w, Array(candidate.lowercased()))
            if d < (best?.1 ?? .max) { best = (candidate, d) }
        }
        guard let (name, d) = best, d <= max(2, w.count / 3) else { return nil }
        return name
    }

    /// Levenshtein distance.
    public static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count), current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
