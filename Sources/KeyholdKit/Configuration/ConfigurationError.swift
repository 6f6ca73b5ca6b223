/// A configuration file that cannot be used, naming the file, the line and the key:
///
///     /etc/keyhold/config.toml:12: gestures.long_pres_ms: unknown key (did you mean 'long_press_ms'?)
///     /etc/keyhold/config.toml:3:14: syntax error: expected '=' ...
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file as given (a path, or a name such as `<default>` for text without a file).
    public var file: String
    /// 1-based; nil when the error is about the whole file (it cannot be read).
    public var line: Int?
    /// 1-based, in Unicode scalars; for syntax errors, where the parser stopped, else the key's.
    public var column: Int?
    /// The dotted key path (`gestures.long_press_ms`, `feedback.override[1].audio`); nil for
    /// syntax and file errors.
    public var key: String?
    public var message: String
    /// The nearest valid spelling, as `did you mean 'long_press_ms'?`.
    public var suggestion: String?

    public init(file: String, line: Int? = nil, column: Int? = nil, key: String? = nil, message: String, suggestion: String? = nil) {
        self.file = file; self.line = line; self.column = column
        self.key = key; self.message = message; self.suggestion = suggestion
    }

    /// `file:line: key: message (suggestion)`; `file:line:column: message` for syntax errors.
    public var description: String {
        var s = file
        if let line {
            s += ":\(line)"
            if key == nil, let column { s += ":\(column)" }
        }
        s += ": "
        if let key { s += "\(key): " }
        s += message
        if let suggestion { s += " (\(suggestion))" }
        return s
    }
}

/// Nearest-spelling suggestions for error messages.
enum Spelling {
    /// The candidate closest to `word` by edit distance (case-insensitive), when it is close
    /// enough to be a plausible typo; ties go to the earlier candidate.
    static func nearest(to word: String, in candidates: some Sequence<String>) -> String? {
        let w = Array(word.lowercased().unicodeScalars)
        guard !w.isEmpty else { return nil }
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let c = Array(candidate.lowercased().unicodeScalars)
            let limit = max(2, min(w.count, c.count) / 3)
            // The distance is at least the difference in length: skip the table for long words.
            guard abs(w.count - c.count) <= limit else { continue }
            let d = distance(w, c)
            guard d <= limit, d < w.count, d < (best?.distance ?? Int.max) else { continue }
            best = (candidate, d)
        }
        if let best { return best.name }
        // A word cut short (`pace` for `pace_us`).
        guard w.count >= 3 else { return nil }
        let prefixed = candidates.filter { $0.lowercased().unicodeScalars.starts(with: w) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// Damerau–Levenshtein distance (optimal string alignment): an adjacent swap costs 1.
    static func distance(_ a: String, _ b: String) -> Int {
        distance(Array(a.unicodeScalars), Array(b.unicodeScalars))
    }

    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, previous2[j - 2] + 1) }
                current[j] = d
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }
}
