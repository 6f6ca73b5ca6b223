import KeyholdKit

/// The engines a daemon installs for a configuration: ALSA audio and evdev haptics when they
/// are on, KeyholdKit's silent engines when they are off.
///
///     services.audioEngine = LinuxFeedbackEngines.audio(for: configuration.feedback)
///     services.hapticEngine = LinuxFeedbackEngines.haptic(for: configuration.feedback)
public enum LinuxFeedbackEngines {
    public static func audio(for settings: KeyboardFeedbackSettings,
                             log: @escaping FeedbackLogger = FeedbackLog.standard) -> AudioFeedbackEngine {
        settings.isAudioEnabled ? ALSAAudioEngine(settings: settings, log: log) : SilentAudioEngine()
    }

    public static func haptic(for settings: KeyboardFeedbackSettings,
                              log: @escaping FeedbackLogger = FeedbackLog.standard) -> HapticFeedbackEngine {
        settings.isHapticEnabled ? EvdevHapticEngine(settings: settings, log: log) : SilentHapticEngine()
    }
}
