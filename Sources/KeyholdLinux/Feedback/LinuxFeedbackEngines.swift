import KeyholdKit

/// The engines a daemon installs for a configuration: ALSA audio and evdev haptics when they
/// are on, KeyholdKit's silent engines when they are off.
///
///     services.audioEngine = LinuxFeedbackEngines.audio(for: configuration.feedback)
///     services.hapticEngine = LinuxFeedbackEngines.haptic(for: configuration.feedback)
public enum LinuxFeedbackEngines {
    public static func audio(for settings: KeyboardFeedbackSettings,
                             log: @escaping FeedbackLogger = FeedbackLog.standard) -> AudioFeedbackEngine {
        guard settings.isAudioEnabled else { return SilentAudioEngine() }
        // With KEYHOLD_DEBUG=1, each sound's delay (the desktop suite's benchmark reads it).
        var trace: (@Sendable (ALSAAudioEngine.Playback) -> Void)?
        if Log.maximumLevel >= .debug { trace = { traceDelay($0) } }
        return ALSAAudioEngine(settings: settings, log: log, onFirstFrame: trace)
    }

    @Sendable private static func traceDelay(_ playback: ALSAAudioEngine.Playback) {
        Log.debug("audio: \(playback.feedback.configString) played, first frame \(playback.delayNanoseconds / 1_000) µs after the key (daemon)")
    }

    public static func haptic(for settings: KeyboardFeedbackSettings,
                              log: @escaping FeedbackLogger = FeedbackLog.standard) -> HapticFeedbackEngine {
        settings.isHapticEnabled ? EvdevHapticEngine(settings: settings, log: log) : SilentHapticEngine()
    }
}
