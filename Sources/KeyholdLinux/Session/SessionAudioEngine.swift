import KeyholdKit

/// Audio feedback that plays where the user is (docs/ARCHITECTURE.md, Feedback): while the companion of the
/// session in front is connected, it plays each sound through that session's own sound server, so
/// the system service needs no sound card; without one, the daemon's ALSA engine plays it.
public final class SessionAudioEngine: AudioFeedbackEngine {
    /// The daemon's own engine, for a text console or a session without a companion.
    public let local: AudioFeedbackEngine
    /// Hands a sound to the companion in front; false when there is none. Set by the daemon.
    public var companion: ((AudioFeedback) -> Bool)?

    public init(local: AudioFeedbackEngine) { self.local = local }

    public func play(_ feedback: AudioFeedback) {
        guard feedback != .none else { return }
        if let companion, companion(feedback) { return }
        local.play(feedback)
    }
}
