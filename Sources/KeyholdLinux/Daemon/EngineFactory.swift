import KeyholdKit

/// Builds the engine the daemon runs for a configuration, at start and after each reload: the
/// controller (a subclass installs its services in `viewDidLoad()`), the Linux feedback engines,
/// and the daemon's state carried into the new engine's services.
public final class EngineFactory {
    /// The controller type the keyboard is driven with.
    public var controllerType: KeyboardInputViewController.Type = KeyboardInputViewController.self
    /// Called with every engine built, before it sees any event: replace services here.
    public var prepareEngine: ((KeyholdEngine) -> Void)?

    /// Audio (ALSA) and haptic (evdev force feedback) engines, reopened off the input thread when
    /// `[feedback]` changes (kept across reloads that leave it unchanged, so the PCM is not
    /// reopened).
    let feedback = FeedbackSwitch()
    private var feedbackSettings: KeyboardFeedbackSettings?
    /// Sounds go to the session companion in front when there is one, else to `feedback`.
    let audio: SessionAudioEngine
    /// What the engines play, held until the batch's keys are written (the daemon flushes it).
    let deferred: DeferredFeedback

    /// `playInSession`: plays a sound in the graphical session; false when there is none.
    init(playInSession: @escaping (AudioFeedback) -> Bool) {
        audio = SessionAudioEngine(local: feedback)
        audio.companion = playInSession
        deferred = DeferredFeedback(audio: audio, haptic: feedback)
    }

    /// What the running daemon knows that a new engine must start from.
    struct State {
        var unicodeMethod: UnicodeMethod
        var leds: LEDState
        var paused: Bool
        /// The focused application's callouts, bindings and pass-through.
        var application: ApplicationSettings
        /// The user in front's callout picks and the characters they searched for last.
        var picks: CalloutPicks
        var recentSearches: [String]
        /// What observes every engine: the monitors, the companions' hub (the picker).
        var observers: [EngineObserver]
        var onPanic: () -> Void
    }

    /// Makes and loads the controller for `configuration` and starts its engine.
    func make(_ configuration: KeyholdConfiguration, output: OutputQueue, layout: KeyboardLayout,
              state: State) -> (KeyboardInputViewController, KeyholdEngine) {
        let controller = controllerType.init(configuration: configuration, output: output, layout: layout)
        let services = controller.services
        if feedbackSettings != configuration.feedback {
            let settings = configuration.feedback
            feedbackSettings = settings
            feedback.reopen { (LinuxFeedbackEngines.audio(for: settings), LinuxFeedbackEngines.haptic(for: settings)) }
        }
        services.audioEngine = deferred
        services.hapticEngine = deferred
        // `AudioFeedback.input.trigger()` in a custom handler plays on the same device, after the keys too.
        AudioFeedback.engine = deferred
        HapticFeedback.engine = deferred
        services.unicodeMethod = state.unicodeMethod
        services.keyboardContext.isCapsLockOn = state.leds.capsLock
        services.keyboardContext.isNumLockOn = state.leds.numLock
        services.calloutContext.picks = state.picks
        services.searchContext.recent = state.recentSearches
        let engine = controller.start()
        engine.onPanic = state.onPanic
        engine.isPaused = state.paused
        engine.focusChanged(to: state.application)
        for observer in state.observers { engine.addObserver(observer) }
        engine.defersFeedback = true   // the daemon decides it after the batch's keys are written
        prepareEngine?(engine)
        return (controller, engine)
    }

    /// Closes the feedback engines (at shutdown, after the last key is written).
    func close() { feedback.close() }
}
