import KeyholdKit

/// An `AudioFeedbackEngine` that keeps every sound it is asked to play, in order.
public final class AudioFeedbackRecorder: AudioFeedbackEngine {
    public private(set) var played: [AudioFeedback] = []
    public init() {}
    public func play(_ feedback: AudioFeedback) { played.append(feedback) }
}
