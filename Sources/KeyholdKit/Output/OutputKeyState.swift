/// Which keys are down on the output, so that none is ever left held (and any set of keys:
/// the engine's bound keys).
public struct OutputKeyState: Sendable {
    /// Inline, not an array: setting a bit is then an OR, with no uniqueness check or heap buffer
    /// (three of these change on every key).
    @usableFromInline var bits = InlineArray<12, UInt64>(repeating: 0)   // KeyCode.count / 64
    /// Which words of `bits` have a key down: whether any key is, or any of a key's 64, is then
    /// one load, not a scan (most keys are looked up with none of their block down).
    @usableFromInline var wordsInUse: UInt16 = 0
    public init() {}

    @inlinable @inline(__always) public func isDown(_ key: KeyCode) -> Bool {
        let i = Int(key.rawValue)
        return i < bits.count &* 64 && wordsInUse & (1 << UInt16(i >> 6)) != 0 && bits[i >> 6] & (1 << UInt64(i & 63)) != 0
    }

    @inlinable @inline(__always) public func contains(_ key: KeyCode) -> Bool { isDown(key) }

    @inlinable @inline(__always) public mutating func set(_ key: KeyCode, down: Bool) {
        let i = Int(key.rawValue)
        guard i < bits.count &* 64 else { return }
        let w = i >> 6
        if down {
            bits[w] |= 1 << UInt64(i & 63)
            wordsInUse |= 1 << UInt16(w)
        } else {
            bits[w] &= ~(1 << UInt64(i & 63))
            if bits[w] == 0 { wordsInUse &= ~(1 << UInt16(w)) }
        }
    }

    /// The keys down, in code order.
    public var downKeys: [KeyCode] {
        var keys: [KeyCode] = []
        for w in bits.indices where bits[w] != 0 {
            let word = bits[w]
            for b in 0..<64 where word & (1 << UInt64(b)) != 0 { keys.append(KeyCode(UInt16(w * 64 + b))) }
        }
        return keys
    }
    @inlinable public var isEmpty: Bool { wordsInUse == 0 }
}
