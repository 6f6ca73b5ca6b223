/// A timed key script for `keyhold simulate` and tests: whitespace-separated steps `d:KEY` (key
/// down), `u:KEY` (key up), `r:KEY` (kernel repeat), `t:MS` (time passes); KEY is the evdev name
/// without `KEY_`, case-insensitive.
public struct SimulationScript: Hashable, Sendable {
    public enum Step: Hashable, Sendable {
        case key(KeyCode, KeyState)
        case wait(milliseconds: Int)
    }
    public var steps: [Step]

    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public var step: String
        public var position: Int
        public var message: String
        public var description: String { "step \(position) '\(step)': \(message)" }
    }

    public init(steps: [Step]) { self.steps = steps }

    /// The longest `t:` step, in milliseconds.
    public static let maximumWait = 86_400_000

    public init(_ text: String) throws(ParseError) {
        steps = []
        for (n, word) in text.split(whereSeparator: { $0.isWhitespace }).enumerated() {
            let token = String(word)
            guard let colon = token.firstIndex(of: ":") else {
                throw ParseError(step: token, position: n + 1, message: "expected d:KEY, u:KEY, r:KEY or t:MS")
            }
            let kind = token[..<colon].lowercased(), value = String(token[token.index(after: colon)...])
            switch kind {
            case "t":
                guard let ms = Int(value), ms >= 0 else {
                    throw ParseError(step: token, position: n + 1, message: "time must be a whole number of milliseconds")
                }
                // A day at most per step keeps any script's clock far inside 64-bit microseconds
                // (found by the fuzzer: `t:20155555555555530` overflowed it).
                guard ms <= Self.maximumWait else {
                    throw ParseError(step: token, position: n + 1, message: "time is at most \(Self.maximumWait) ms (a day) per step")
                }
                steps.append(.wait(milliseconds: ms))
            case "d", "u", "r":
                guard let key = KeyCode(name: value) else {
                    let near = Spelling.nearest(to: value.lowercased(), in: KeyCode.allNames).map { " (did you mean '\($0)'?)" } ?? ""
                    throw ParseError(step: token, position: n + 1, message: "unknown key '\(value)'\(near)")
                }
                steps.append(.key(key, kind == "d" ? .down : kind == "u" ? .up : .autoRepeat))
            default:
                throw ParseError(step: token, position: n + 1, message: "unknown step kind '\(kind)'; expected d, u, r or t")
            }
        }
    }

    /// The events of the script with their times, starting at `start`.
    public func events(startingAt start: Timestamp = .zero) -> (events: [KeyEvent], end: Timestamp) {
        var t = start, events: [KeyEvent] = []
        for step in steps {
            switch step {
            case .wait(let ms): t = t + ms
            case .key(let key, let state): events.append(KeyEvent(key, state, at: t))
            }
        }
        return (events, t)
    }
}
