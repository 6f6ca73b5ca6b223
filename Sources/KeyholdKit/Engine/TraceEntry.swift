/// One line of the engine's trace: what came in, which gestures ran on which actions, what went out.
public enum TraceEntry: Hashable, Sendable, CustomStringConvertible {
    case input(KeyEvent)
    case forwarded(KeyCode, KeyState, Timestamp)
    case gesture(KeyCode, KeyboardGesture, KeyboardAction, Timestamp)
    case callout(CalloutEvent, Timestamp)
    case output(KeyCode, KeyState, Timestamp)
    /// The active callout locale changed (`nextLocale`).
    case locale(String, Timestamp)
    case panic(Timestamp)

    public var description: String {
        switch self {
        case .input(let e): return "\(e.time) in \(e.code) \(Self.name(e.state))"
        case .forwarded(let k, let s, let t): return "\(t) forward \(k) \(Self.name(s))"
        case .gesture(let k, let g, let a, let t): return "\(t) gesture \(k) \(g.rawValue) \(a.configString)"
        case .callout(.opened(let base, let candidates), let t):
            return "\(t) callout open \(base) " + candidates.enumerated().map { "\($0.offset + 1)\($0.element)" }.joined(separator: " ")
        case .callout(.moved(let i, let shown), let t): return "\(t) callout move \(i) \(shown)"
        case .callout(.search(let query, let candidates, let i, let name), let t):
            return (["\(t) search \"\(query)\""] + candidates.enumerated().map { "\($0.offset + 1)\($0.element)" }
                    + (i > 0 ? ["[\(i) \(name)]"] : [])).joined(separator: " ")
        case .callout(.closed(let text), let t): return "\(t) callout close \(text)"
        case .output(let k, let s, let t): return "\(t) out \(k) \(Self.name(s))"
        case .locale(let id, let t): return "\(t) locale \(id)"
        case .panic(let t): return "\(t) panic escape"
        }
    }

    private static func name(_ s: KeyState) -> String {
        switch s { case .up: return "up"; case .down: return "down"; case .autoRepeat: return "repeat" }
    }
}
