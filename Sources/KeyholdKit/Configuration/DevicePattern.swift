/// One entry of `[devices] include` / `exclude`: a name glob, `vendor:product` in hex, or
/// `phys:GLOB`.
public enum DevicePattern: Hashable, Sendable, CustomStringConvertible {
    case name(String)
    case id(vendor: UInt16, product: UInt16)
    case phys(String)

    public init(_ text: String) {
        if text.hasPrefix("phys:") { self = .phys(String(text.dropFirst(5))); return }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, parts.allSatisfy({ $0.count == 4 }),
           let v = UInt16(parts[0], radix: 16), let p = UInt16(parts[1], radix: 16) {
            self = .id(vendor: v, product: p); return
        }
        self = .name(text)
    }

    public var description: String {
        switch self {
        case .name(let glob): return glob
        case .phys(let glob): return "phys:\(glob)"
        case .id(let v, let p): return Self.hex4(v) + ":" + Self.hex4(p)
        }
    }

    public func matches(name: String, vendor: UInt16, product: UInt16, phys: String) -> Bool {
        switch self {
        case .name(let glob): return Glob.matches(glob, name)
        case .phys(let glob): return Glob.matches(glob, phys)
        case .id(let v, let p): return v == vendor && p == product
        }
    }

    private static func hex4(_ v: UInt16) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 4 - s.count) + s
    }
}

/// Shell-style globs (`*`, `?`, `[abc]`, `[!a-z]`) for device names and application ids,
/// case-sensitive as fnmatch. Without recursion, in at most pattern × text steps: the text may come
/// from a client (an application id a session companion reports).
public enum Glob {
    public static func matches(_ pattern: String, _ text: String) -> Bool {
        let p = Array(pattern), t = Array(text)
        var pi = 0, ti = 0
        // The last `*` seen and where its match in the text ends so far: a later mismatch lets it
        // take one more character (an earlier `*` never needs to: the last one can take any).
        var star: (pi: Int, ti: Int)?
        while ti < t.count {
            if pi < p.count {
                switch p[pi] {
                case "*":
                    star = (pi, ti)
                    pi += 1
                    continue
                case "?":
                    pi += 1; ti += 1
                    continue
                case "[":
                    if let (matched, next) = matchClass(p, pi, t[ti]) {
                        if matched { pi = next; ti += 1; continue }
                    } else if t[ti] == "[" {
                        pi += 1; ti += 1
                        continue
                    }
                default:
                    if p[pi] == t[ti] { pi += 1; ti += 1; continue }
                }
            }
            guard let s = star else { return false }
            star = (s.pi, s.ti + 1)
            pi = s.pi + 1
            ti = s.ti + 1
        }
        while pi < p.count && p[pi] == "*" { pi += 1 }
        return pi == p.count
    }

    /// Matches a `[...]` class at `start`; nil when it is not a complete class.
    private static func matchClass(_ p: [Character], _ start: Int, _ c: Character) -> (Bool, Int)? {
        var i = start + 1
        let negate = i < p.count && (p[i] == "!" || p[i] == "^")
        if negate { i += 1 }
        var matched = false, first = true
        while i < p.count && (p[i] != "]" || first) {
            first = false
            if i + 2 < p.count && p[i + 1] == "-" && p[i + 2] != "]" {
                if p[i] <= c && c <= p[i + 2] { matched = true }
                i += 3
            } else {
                if p[i] == c { matched = true }
                i += 1
            }
        }
        guard i < p.count else { return nil }
        return (matched != negate, i + 1)
    }
}
