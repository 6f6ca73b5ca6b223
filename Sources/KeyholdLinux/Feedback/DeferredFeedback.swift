import KeyholdKit

/// Feedback the engine asks for while it handles a batch, played once that batch's keys are
/// written: a sound or a rumble costs system calls (a clock read and a lock for the audio
/// thread, a send to the companion, a write to the rumble device), and the key must not wait
/// for them. The daemon calls `flush()` right after the virtual keyboard is flushed. Requests
/// keep their order; the buffer keeps its capacity, so steady typing allocates nothing.
public final class DeferredFeedback: AudioFeedbackEngine, HapticFeedbackEngine {
    public let audio: AudioFeedbackEngine
    public let haptic: HapticFeedbackEngine

    private enum Request { case audio(AudioFeedback), haptic(HapticFeedback) }
    private var pending: [Request] = []

    public init(audio: AudioFeedbackEngine, haptic: HapticFeedbackEngine) {
        self.audio = audio
        self.haptic = haptic
        pending.reserveCapacity(8)
    }

    public func play(_ feedback: AudioFeedback) {
        guard feedback != .none else { return }
        pending.append(.audio(feedback))
    }

    public func play(_ feedback: HapticFeedback) {
        guard feedback != .none else { return }
        pending.append(.haptic(feedback))
    }

    /// Whether a request waits for `flush()`.
    public var hasPending: Bool { !pending.isEmpty }

    /// Plays what was asked for since the last flush, in order.
    public func flush() {
        guard !pending.isEmpty else { return }
        for request in pending {
            switch request {
            case .audio(let feedback): audio.play(feedback)
            case .haptic(let feedback): haptic.play(feedback)
            }
        }
        pending.removeAll(keepingCapacity: true)
    }
}
