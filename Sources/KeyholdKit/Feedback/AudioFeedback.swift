/// The sounds a key can make, as KeyboardKit's `Feedback.Audio`.
public enum AudioFeedback: Hashable, Sendable {
    case input, delete, system
    /// A sound file (WAV) given in the configuration.
    case custom(path: String)
    case none

    public init?(configString s: String) {
        switch s {
        case "input": self = .input
        case "delete": self = .delete
        case "system": self = .system
        case "none": self = .none
        default:
            guard s.hasPrefix("/") || s.hasPrefix("~") || s.hasPrefix(".") else { return nil }
            self = .custom(path: s)
        }
    }
    public var configString: String {
        switch self {
        case .input: return "input"
        case .delete: return "delete"
        case .system: return "system"
        case .none: return "none"
        case .custom(let path): return path
        }
    }
}

/// Plays audio feedback. The ALSA engine lives in KeyholdLinux; `SilentAudioEngine` is the off state.
public protocol AudioFeedbackEngine: AnyObject {
    /// Starts the sound and returns at once: playing never blocks key handling.
    func play(_ feedback: AudioFeedback)
}

/// The engine used when audio feedback is off or there is no sound card.
public final class SilentAudioEngine: AudioFeedbackEngine {
    public init() {}
    public func play(_ feedback: AudioFeedback) {}
}

extension AudioFeedback {
    /// Where `trigger()` plays, and the standard feedback handler too unless it was given an
    /// engine of its own. Replace it to hear feedback elsewhere; the daemon sets its ALSA engine.
    /// Used from the input thread only.
    nonisolated(unsafe) public static var engine: AudioFeedbackEngine = SilentAudioEngine()

    /// Plays this sound on `AudioFeedback.engine`, without a feedback handler.
    public func trigger() { AudioFeedback.engine.play(self) }
}
