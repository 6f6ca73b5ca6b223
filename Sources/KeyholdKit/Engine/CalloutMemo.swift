/// Remembers, per key and Shift/AltGr/Caps Lock state, whether the character the key types has
/// callouts, and if so the key's action, so a key pressed again is neither looked up in the layout,
/// tested for whitespace, turned into a string nor looked up in the provider again: that was most
/// of what a key cost before it was written.
///
/// The answers hold as long as the layout (layouts do not change once made) and the standard
/// provider's own memo do; a provider that keeps no memo (another type, a subclass, locales
/// that are not tables) is asked on every press.
struct CalloutMemo {
    enum Answer { case unknown, none, some(KeyboardAction) }

    /// Index: key × 8 + Shift/AltGr/Caps Lock state. 0: unknown, 1: no callouts, n: `actions[n - 2]`.
    private var answers = [UInt16](repeating: 0, count: KeyCode.count * 8)
    /// The actions of the keys whose characters have callouts, once each was asked for.
    private var actions: [KeyboardAction] = []
    private var layout: KeyboardLayout?
    /// The provider the answers came from, if it remembers its own.
    private var provider: StandardCalloutActionProvider?
    private var generation = 0

    /// What is known of `key` in `state` (`state(modifiers:capsLock:)`) with these services.
    mutating func answer(for key: KeyCode, state: Int, layout: KeyboardLayout, provider: CalloutActionProvider) -> Answer {
        // The provider of the last answer is known to be exactly the standard one: an identity
        // test then replaces the type test (a metadata call on every key).
        let standard: StandardCalloutActionProvider
        if let known = self.provider, known === provider {
            standard = known
        } else if type(of: provider) == StandardCalloutActionProvider.self {
            standard = unsafeDowncast(provider as AnyObject, to: StandardCalloutActionProvider.self)
        } else {
            self.provider = nil   // nothing is remembered for it
            return .unknown
        }
        guard standard.refreshMemo() else {
            self.provider = nil
            return .unknown
        }
        if self.layout !== layout || self.provider !== standard || generation != standard.memoGeneration {
            for i in answers.indices { answers[i] = 0 }
            actions.removeAll(keepingCapacity: true)
            self.layout = layout
            self.provider = standard
            generation = standard.memoGeneration
        }
        switch answers[Int(key.rawValue) &* 8 &+ state] {
        case 0: return .unknown
        case 1: return .none
        case let n: return .some(actions[Int(n) &- 2])
        }
    }

    /// Records the key's action when its character has callouts (nil: it has none), after
    /// `answer(for:…)` said `.unknown` (kept only for a provider that remembers its own).
    mutating func remember(_ action: KeyboardAction?, for key: KeyCode, state: Int) {
        guard provider != nil else { return }
        var code: UInt16 = 1
        if let action {
            actions.append(action)   // at most one per key and state: bounded by `answers`
            code = UInt16(actions.count + 1)
        }
        answers[Int(key.rawValue) &* 8 &+ state] = code
    }

    /// The state index of Shift and AltGr (`modifiers`) and Caps Lock.
    static func state(modifiers: ModifierKeys, capsLock: Bool) -> Int {
        (modifiers.contains(.shift) ? 1 : 0) | (modifiers.contains(.altGr) ? 2 : 0) | (capsLock ? 4 : 0)
    }
}
