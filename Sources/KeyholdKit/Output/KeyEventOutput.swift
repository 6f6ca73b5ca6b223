/// Where the engine's key events go: the uinput virtual keyboard on Linux, a recorder in tests.
/// Each event is one key transition; the Linux side follows every event with SYN_REPORT.
public protocol KeyEventOutput: AnyObject {
    func send(_ key: KeyCode, _ state: KeyState)
}

/// One key transition, as a queue holds it.
public struct KeyTransition: Hashable, Sendable {
    public var key: KeyCode
    public var state: KeyState
    public init(_ key: KeyCode, _ state: KeyState) { self.key = key; self.state = state }
}

/// An output that can hand characters to the session companion (`keyhold-session`), in order
/// with its key events: the `OutputQueue`.
public protocol TextHandOffOutput: KeyEventOutput {
    /// Queues `text` for the companion. `fallback` types the same text with key events; it is
    /// used when no companion takes it or the companion does not answer in time.
    func handOff(_ text: String, fallback: [KeyTransition])
}

/// Which keys are down on the output, so that none is ever left held.
public struct OutputKeyState: Sendable {
    private var bits = [UInt64](repeating: 0, count: KeyCode.count / 64)
    public init() {}

    public func isDown(_ key: KeyCode) -> Bool {
        let i = Int(key.rawValue)
        return i < KeyCode.count && bits[i >> 6] & (1 << UInt64(i & 63)) != 0
    }

    public mutating func set(_ key: KeyCode, down: Bool) {
        let i = Int(key.rawValue)
        guard i < KeyCode.count else { return }
        if down { bits[i >> 6] |= 1 << UInt64(i & 63) } else { bits[i >> 6] &= ~(1 << UInt64(i & 63)) }
    }

    /// The keys down, in code order.
    public var downKeys: [KeyCode] {
        var keys: [KeyCode] = []
        for (w, word) in bits.enumerated() where word != 0 {
            for b in 0..<64 where word & (1 << UInt64(b)) != 0 { keys.append(KeyCode(UInt16(w * 64 + b))) }
        }
        return keys
    }
    public var isEmpty: Bool { bits.allSatisfy { $0 == 0 } }
}
