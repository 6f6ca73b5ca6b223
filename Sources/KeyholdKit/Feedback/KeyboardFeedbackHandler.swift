/// Decides and triggers the feedback for each gesture, as KeyboardKit's feedback service.
public protocol KeyboardFeedbackHandler: AnyObject {
    func triggerFeedback(for gesture: KeyboardGesture, on action: KeyboardAction)
    func triggerAudioFeedback(_ feedback: AudioFeedback)
    func triggerHapticFeedback(_ feedback: HapticFeedback)
}

/// KeyboardKit's standard rules: the input sound on press of input actions, the delete sound on
/// backspace press and repeat, the system sound on press of system actions; a light impact on
/// press and double tap, a medium impact on long press. Configuration overrides come first.
open class StandardKeyboardFeedbackHandler: KeyboardFeedbackHandler {
    public var settings: KeyboardFeedbackSettings
    private var ownAudioEngine: AudioFeedbackEngine?
    private var ownHapticEngine: HapticFeedbackEngine?

    /// Plays the sounds: the one given, else `AudioFeedback.engine`.
    public var audioEngine: AudioFeedbackEngine {
        get { ownAudioEngine ?? AudioFeedback.engine }
        set { ownAudioEngine = newValue }
    }
    /// Plays the haptics: the one given, else `HapticFeedback.engine`.
    public var hapticEngine: HapticFeedbackEngine {
        get { ownHapticEngine ?? HapticFeedback.engine }
        set { ownHapticEngine = newValue }
    }

    /// Without engines it plays on the static ones (`AudioFeedback.engine`,
    /// `HapticFeedback.engine`); installed in a controller's services, it plays on theirs.
    public init(settings: KeyboardFeedbackSettings = KeyboardFeedbackSettings(), audioEngine: AudioFeedbackEngine? = nil,
                hapticEngine: HapticFeedbackEngine? = nil) {
        self.settings = settings; self.ownAudioEngine = audioEngine; self.ownHapticEngine = hapticEngine
    }

    open func triggerFeedback(for gesture: KeyboardGesture, on action: KeyboardAction) {
        let override = settings.override(for: gesture, on: action)
        if let audio = override?.audio ?? audioFeedback(for: gesture, on: action) { triggerAudioFeedback(audio) }
        if let haptic = override?.haptic ?? hapticFeedback(for: gesture, on: action) { triggerHapticFeedback(haptic) }
    }

    open func triggerAudioFeedback(_ feedback: AudioFeedback) {
        guard settings.isAudioEnabled, feedback != .none else { return }
        audioEngine.play(feedback)
    }

    open func triggerHapticFeedback(_ feedback: HapticFeedback) {
        guard settings.isHapticEnabled, feedback != .none else { return }
        hapticEngine.play(feedback)
    }

    /// The standard sound for a gesture on an action, before overrides.
    open func audioFeedback(for gesture: KeyboardGesture, on action: KeyboardAction) -> AudioFeedback? {
        switch (gesture, action) {
        case (.press, .backspace), (.repeatPress, .backspace), (.tap, .backspace): return .delete
        case (.press, _) where action.isInputAction, (.tap, _) where action.isInputAction: return .input
        case (.press, _) where action.isSystemAction, (.tap, _) where action.isSystemAction: return .system
        default: return nil
        }
    }

    /// The standard haptic for a gesture on an action, before overrides.
    open func hapticFeedback(for gesture: KeyboardGesture, on action: KeyboardAction) -> HapticFeedback? {
        guard action != .none else { return nil }
        switch gesture {
        case .press, .doubleTap, .tap: return .lightImpact
        case .longPress: return .mediumImpact
        case .release, .repeatPress: return nil
        }
    }
}
