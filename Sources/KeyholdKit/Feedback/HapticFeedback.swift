/// The haptic patterns of KeyboardKit's `Feedback.Haptic`.
public enum HapticFeedback: String, Hashable, Sendable, CaseIterable {
    case error, success, warning, lightImpact, mediumImpact, heavyImpact, selectionChanged, none

    public init?(configString s: String) { self.init(rawValue: s) }
    public var configString: String { rawValue }
}

/// Plays haptic feedback. The evdev force-feedback engine lives in KeyholdLinux.
public protocol HapticFeedbackEngine: AnyObject {
    /// Starts the pattern and returns at once.
    func play(_ feedback: HapticFeedback)
}

/// The engine used when haptics are off or no device can rumble.
public final class SilentHapticEngine: HapticFeedbackEngine {
    public init() {}
    public func play(_ feedback: HapticFeedback) {}
}

extension HapticFeedback {
    /// Where `trigger()` plays, and the standard feedback handler too unless it was given an
    /// engine of its own. Replace it to feel feedback elsewhere; the daemon sets its force-feedback
    /// engine. Used from the input thread only.
    nonisolated(unsafe) public static var engine: HapticFeedbackEngine = SilentHapticEngine()

    /// Plays this pattern on `HapticFeedback.engine`, without a feedback handler.
    public func trigger() { HapticFeedback.engine.play(self) }
}
