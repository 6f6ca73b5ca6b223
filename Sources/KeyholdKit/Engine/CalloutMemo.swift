/// Remembers, per key and Shift/AltGr/Caps Lock state, whether the character the key types has
/// callouts, so a key pressed again is neither turned into a string nor looked up again: that is
/// most of what a key that is only passed through would cost.
///
/// The answers hold as long as the layout (layouts do not change once made) and the standard
/// provider's own memo do; a provider that keeps no memo (another type, a subclass, locales
/// that are not tables) is asked on every press.
struct CalloutMemo {
    enum Answer: UInt8 { case unknown, none, some }

    /// Index: key × 8 + Shift/AltGr/Caps Lock state.
    private var answers = [Answer](repeating: .unknown, count: KeyCode.count * 8)
    private var layout: KeyboardLayout?
    /// The provider the answers came from, if it remembers its own.
    private var provider: StandardCalloutActionProvider?
    private var generation = 0

    /// What is known of `key` in `state` (`state(modifiers:capsLock:)`) with these services.
    mutating func answer(for key: KeyCode, state: Int, layout: KeyboardLayout, provider: CalloutActionProvider) -> Answer {
        guard type(of: provider) == StandardCalloutActionProvider.self,
              case let standard = unsafeDowncast(provider as AnyObject, to: StandardCalloutActionProvider.self),
              standard.refreshMemo() else {
            self.provider = nil   // nothing is remembered for it
            return .unknown
        }
        if self.layout !== layout || self.provider !== standard || generation != standard.memoGeneration {
            for i in answers.indices { answers[i] = .unknown }
            self.layout = layout
            self.provider = standard
            generation = standard.memoGeneration
        }
        return answers[Int(key.rawValue) &* 8 &+ state]
    }

    /// Records the provider's answer, after `answer(for:…)` said `.unknown` (kept only for a
    /// provider that remembers its own).
    mutating func remember(_ hasCallouts: Bool, for key: KeyCode, state: Int) {
        guard provider != nil else { return }
        answers[Int(key.rawValue) &* 8 &+ state] = hasCallouts ? .some : .none
    }

    /// The state index of Shift and AltGr (`modifiers`) and Caps Lock.
    static func state(modifiers: ModifierKeys, capsLock: Bool) -> Int {
        (modifiers.contains(.shift) ? 1 : 0) | (modifiers.contains(.altGr) ? 2 : 0) | (capsLock ? 4 : 0)
    }
}
