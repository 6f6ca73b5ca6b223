import KeyholdKit

/// Plays nothing and keeps every sound and haptic it is given, in one order (`audio input`,
/// `haptic lightImpact`): what two runs of a fixture played can then be compared line by line.
final class FeedbackLog: AudioFeedbackEngine, HapticFeedbackEngine {
    private(set) var played: [String] = []
    func play(_ feedback: AudioFeedback) { played.append("audio \(feedback)") }
    func play(_ feedback: HapticFeedback) { played.append("haptic \(feedback)") }
}
