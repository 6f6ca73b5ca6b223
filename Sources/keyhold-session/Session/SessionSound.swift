import Glibc
import KeyholdKit
import KeyholdLinux
import Synchronization

/// Plays the daemon's audio feedback through the session's own sound server (ALSA `default`,
/// which is PipeWire or PulseAudio on a desktop), so the system service needs no sound card
/// (docs/ARCHITECTURE.md, Feedback). The PCM opens on a thread of its own when the first sound comes (that
/// sound is not heard) and stays open; ALSA's audio thread writes it, so the companion's loop
/// never waits on the sound card or the sound server.
final class SessionSound {
    /// The ALSA PCM sounds play on: `default` unless `--audio-device` names another.
    let device: String
    private let output = FeedbackSwitch()
    private var volume = -1.0
    private let requestedAt: Tracer

    init(device: String) {
        self.device = device
        requestedAt = Tracer()
    }

    /// `sound` at `volume`, which the daemon asked for at `at` (CLOCK_MONOTONIC ns; 0: unknown).
    func play(_ sound: AudioFeedback, volume: Double, at: UInt64) {
        if volume != self.volume {
            // A new volume re-renders the sounds: rare (a reload), so the engine is simply reopened.
            self.volume = volume
            let tracer = requestedAt, device = device
            let trace: (@Sendable (ALSAAudioEngine.Playback) -> Void)? = Log.maximumLevel >= .debug
                ? { @Sendable (playback: ALSAAudioEngine.Playback) in tracer.log(playback) } : nil
            output.reopen { (ALSAAudioEngine(options: .init(device: device, volume: volume), onFirstFrame: trace), SilentHapticEngine()) }
        }
        if at > 0 {
            requestedAt.received.store(FeedbackClock.nanoseconds(), ordering: .releasing)
            requestedAt.at.store(at, ordering: .releasing)
        }
        output.play(sound)
    }

    func close() { output.close() }

    /// With KEYHOLD_DEBUG=1, each sound's delay from the daemon's request to the first frame, and
    /// the part of it the request took to reach this process.
    final class Tracer: Sendable {
        let at = Atomic<UInt64>(0), received = Atomic<UInt64>(0)
        func log(_ playback: ALSAAudioEngine.Playback) {
            let at = self.at.load(ordering: .acquiring), received = self.received.load(ordering: .acquiring)
            guard at > 0, playback.firstFrameAt >= at, received >= at else { return }
            Log.debug("audio: \(playback.feedback.configString) played, first frame \((playback.firstFrameAt - at) / 1_000) µs after the key"
                      + " (session; \((received - at) / 1_000) µs to reach the companion)")
        }
    }
}
