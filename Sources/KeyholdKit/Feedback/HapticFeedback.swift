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
