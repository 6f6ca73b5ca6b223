/// The replaceable services of one keyboard, as KeyboardKit's `Keyboard.Services`. Replacing a
/// service re-wires the standard services that depend on it, so a custom callout provider is used
/// by the standard action handler without further work.
open class KeyboardServices {
    public let keyboardContext: KeyboardContext
    public let calloutContext: CalloutContext
    /// The picker as a search, shared by the action handler and the engine.
    public let searchContext = CharacterSearchContext()

    public var layout: KeyboardLayout {
        didSet {
            (keyboardController as? StandardKeyboardController)?.planner.layout = layout
            keyboardContext.modifierMap = layout.modifierMap
            revision &+= 1
        }
    }
    /// How characters the layout lacks are typed now: the configured method resolved for where
    /// the keystrokes go (the daemon updates it when the active session changes).
    public var unicodeMethod: UnicodeMethod {
        didSet { (keyboardController as? StandardKeyboardController)?.planner.unicodeMethod = unicodeMethod }
    }
    public var keyboardController: KeyboardController {
        didSet {
            standardActionHandler?.keyboardController = keyboardController
            revision &+= 1
        }
    }
    /// A standard provider made without a context (`StandardCalloutActionProvider()`) is given
    /// this keyboard's, so it follows the active locale.
    public var calloutActionProvider: CalloutActionProvider {
        didSet {
            (calloutActionProvider as? StandardCalloutActionProvider)?.keyboardContext = keyboardContext
            standardActionHandler?.calloutActionProvider = calloutActionProvider
            revision &+= 1
        }
    }
    /// Bumped when the layout, the controller, the callout provider or the action handler is
    /// replaced: what the engine remembers of them (which keys have callouts, `StandardWiring`)
    /// then starts over, and otherwise it need not look at them.
    private(set) var revision = 0
    /// A standard feedback handler put here plays on these services' engines, when they have
    /// been given some (the daemon's ALSA and force-feedback engines).
    public var feedbackHandler: KeyboardFeedbackHandler {
        didSet {
            wireFeedbackEngines()
            standardActionHandler?.feedbackHandler = feedbackHandler
        }
    }
    private var ownAudioEngine: AudioFeedbackEngine?
    private var ownHapticEngine: HapticFeedbackEngine?
    /// The engine feedback sounds play on: the one given, else `AudioFeedback.engine`.
    public var audioEngine: AudioFeedbackEngine {
        get { ownAudioEngine ?? AudioFeedback.engine }
        set { ownAudioEngine = newValue; wireFeedbackEngines() }
    }
    /// The engine haptics play on: the one given, else `HapticFeedback.engine`.
    public var hapticEngine: HapticFeedbackEngine {
        get { ownHapticEngine ?? HapticFeedback.engine }
        set { ownHapticEngine = newValue; wireFeedbackEngines() }
    }

    private func wireFeedbackEngines() {
        guard let standard = standardFeedbackHandler else { return }
        if let ownAudioEngine { standard.audioEngine = ownAudioEngine }
        if let ownHapticEngine { standard.hapticEngine = ownHapticEngine }
    }
    public var actionHandler: KeyboardActionHandler {
        didSet {
            standardActionHandler?.searchContext = searchContext
            revision &+= 1
        }
    }

    /// Standard services for a configuration, typing onto `output`. The contexts are shared
    /// state every service holds on to, so custom ones (subclasses) are given here, not replaced.
    public init(configuration: KeyholdConfiguration = KeyholdConfiguration(), output: KeyEventOutput,
                layout: KeyboardLayout = USLayout(), keyboardContext: KeyboardContext? = nil,
                calloutContext: CalloutContext? = nil) {
        let context = keyboardContext ?? KeyboardContext(locales: configuration.callouts.locales)
        context.modifierMap = layout.modifierMap
        let method = configuration.output.unicodeMethod.resolved(for: .console).method
        let callouts = calloutContext ?? CalloutContext()
        callouts.order = configuration.callouts.order
        let controller = StandardKeyboardController(
            planner: KeystrokePlanner(layout: layout, unicodeMethod: method,
                                      composeKey: configuration.output.composeKey),
            output: output, keyboardContext: context)
        let provider = StandardCalloutActionProvider(
            keyboardContext: context, customCandidates: configuration.callouts.custom,
            localizedProviders: StandardCalloutActionProvider.standardLocalizedProviders
                + configuration.callouts.customLocales.sorted { $0.key < $1.key }
                .map { TableCalloutActionProvider(localeKey: $0.key, table: $0.value) })
        // No engines of its own: it plays on the static ones until the services are given some.
        let feedback = StandardKeyboardFeedbackHandler(settings: configuration.feedback)
        self.keyboardContext = context
        self.calloutContext = callouts
        self.layout = layout
        self.unicodeMethod = method
        self.keyboardController = controller
        self.calloutActionProvider = provider
        self.feedbackHandler = feedback
        self.actionHandler = StandardKeyboardActionHandler(
            keyboardController: controller, keyboardContext: context, calloutContext: callouts,
            calloutActionProvider: provider, feedbackHandler: feedback)
        standardActionHandler?.searchContext = searchContext
    }

    private var standardActionHandler: StandardKeyboardActionHandler? { actionHandler as? StandardKeyboardActionHandler }
    private var standardFeedbackHandler: StandardKeyboardFeedbackHandler? { feedbackHandler as? StandardKeyboardFeedbackHandler }
}
