/// Remembers, per key and Shift/AltGr/Caps Lock state, whether the character the key types has
/// callouts, and if so the key's action, so a key pressed again is neither looked up in the layout,
/// tested for whitespace, turned into a string nor looked up in the provider again: that was most
/// of what a key cost before it was written.
///
/// The answers hold as long as the layout (layouts do not change once made) and the standard
/// provider's own memo do; a provider that keeps no memo (another type, a subclass, locales
/// that are not tables) is asked on every press.
struct CalloutMemo {
    /// `some`: the place of the key's action, for `action(at:)` and `asciiByte(at:)`.
    enum Answer { case unknown, none, some(Int) }

    /// Index: key × 8 + Shift/AltGr/Caps Lock state. 0: unknown, 1: no callouts, n: `actions[n - 2]`.
    private var answers = [UInt16](repeating: 0, count: KeyCode.count * 8)
    /// The actions of the keys whose characters have callouts, once each was asked for.
    private var actions: [KeyboardAction] = []
    /// Beside each action: its character's byte when it is one ASCII character, else 0 (what the
    /// engine's quickest way to type a letter on press needs, without the action or its string).
    private var asciiBytes: [UInt8] = []
    /// The services' `revision` the answers belong to (their layout and provider).
    private var revision: Int?
    /// The services' provider, when it is a standard one (it keeps a memo of its own when it has
    /// the standard behaviour: `refreshMemo()`).
    private var provider: StandardCalloutActionProvider?
    /// The provider's `memoGeneration` the answers belong to.
    private var generation = 0
    /// Whether the last `answer` came from the memo, so `remember` may add to it.
    private var remembering = false

    /// What is known of `key` in `state` (`state(modifiers:capsLock:)`) with these services.
    @inline(__always) mutating func answer(for key: KeyCode, state: Int, services: KeyboardServices) -> Answer {
        if revision != services.revision {
            // First key, or a service was replaced (the layout, the provider): start over.
            revision = services.revision
            let provider = services.calloutActionProvider
            self.provider = provider as? StandardCalloutActionProvider   // its memo is on for the class itself only
            forget()
        }
        guard let standard = provider, standard.refreshMemo() else {
            remembering = false   // a provider with no memo of its own is asked every time
            return .unknown
        }
        if generation != standard.memoGeneration {
            forget()
            generation = standard.memoGeneration
        }
        remembering = true
        switch answers[Int(key.rawValue) &* 8 &+ state] {
        case 0: return .unknown
        case 1: return .none
        case let n: return .some(Int(n) &- 2)
        }
    }

    @inline(__always) func action(at index: Int) -> KeyboardAction { actions[index] }
    /// The byte of the action's character when it is one ASCII character, else 0.
    @inline(__always) func asciiByte(at index: Int) -> UInt8 { asciiBytes[index] }

    /// Records the key's action when its character has callouts (nil: it has none), after
    /// `answer(for:…)` said `.unknown` (kept only for a provider that remembers its own).
    mutating func remember(_ action: KeyboardAction?, for key: KeyCode, state: Int) {
        guard remembering else { return }
        var code: UInt16 = 1
        if let action {
            actions.append(action)   // at most one per key and state: bounded by `answers`
            var byte: UInt8 = 0
            if case .character(let text) = action, let ascii = text.asciiByte { byte = UInt8(ascii) }
            asciiBytes.append(byte)
            code = UInt16(actions.count + 1)
        }
        answers[Int(key.rawValue) &* 8 &+ state] = code
    }

    private mutating func forget() {
        for i in answers.indices { answers[i] = 0 }
        actions.removeAll(keepingCapacity: true)
        asciiBytes.removeAll(keepingCapacity: true)
    }

    /// The state index of Shift and AltGr (`modifiers`) and Caps Lock.
    static func state(modifiers: ModifierKeys, capsLock: Bool) -> Int {
        (modifiers.contains(.shift) ? 1 : 0) | (modifiers.contains(.altGr) ? 2 : 0) | (capsLock ? 4 : 0)
    }
}
