import KeyholdKit

/// A `HapticFeedbackEngine` that keeps every pattern it is asked to play, in order.
public final class HapticFeedbackRecorder: HapticFeedbackEngine {
    public private(set) var played: [HapticFeedback] = []
    public init() {}
    public func play(_ feedback: HapticFeedback) { played.append(feedback) }
}
