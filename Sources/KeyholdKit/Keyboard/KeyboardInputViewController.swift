/// KeyboardKit's keyboard controller, for a physical keyboard: no view, but the same life. It
/// owns the keyboard's `services` and `state`; `viewDidLoad()` runs once the standard services
/// exist and before the keyboard starts, which is where a subclass installs its own:
///
///     class MyKeyboardViewController: KeyboardInputViewController {
///         override func viewDidLoad() {
///             keyboardActionHandler = MyActionHandler(inputViewController: self)
///             super.viewDidLoad()
///         }
///     }
///
/// The daemon (`keyhold run`, or `KeyholdDaemon.run(MyKeyboardViewController.self)` in a daemon
/// of your own) and `keyhold simulate` make one per configuration they load (at start and after
/// each reload, so `viewDidLoad()` runs again then) and drive the keyboard with its services.
open class KeyboardInputViewController {
    /// The contexts: the keyboard's observable state, as KeyboardKit's `Keyboard.State`.
    public struct State {
        public let keyboardContext: KeyboardContext
        public let calloutContext: CalloutContext
    }

    public let configuration: KeyholdConfiguration
    /// The replaceable services; setting one re-wires the standard services that use it.
    public let services: KeyboardServices

    /// Builds the standard services for `configuration`, typing onto `output` with `layout`.
    public required init(configuration: KeyholdConfiguration = KeyholdConfiguration(), output: KeyEventOutput,
                         layout: KeyboardLayout = USLayout()) {
        self.configuration = configuration
        services = KeyboardServices(configuration: configuration, output: output, layout: layout)
    }

    /// Called once the standard services exist, before the keyboard starts: install your own
    /// services here.
    open func viewDidLoad() {}

    public var state: State { State(keyboardContext: services.keyboardContext, calloutContext: services.calloutContext) }
    public var keyboardContext: KeyboardContext { services.keyboardContext }
    public var calloutContext: CalloutContext { services.calloutContext }

    public var keyboardActionHandler: KeyboardActionHandler {
        get { services.actionHandler }
        set { services.actionHandler = newValue }
    }
    public var keyboardFeedbackHandler: KeyboardFeedbackHandler {
        get { services.feedbackHandler }
        set { services.feedbackHandler = newValue }
    }
    public var calloutActionProvider: CalloutActionProvider {
        get { services.calloutActionProvider }
        set { services.calloutActionProvider = newValue }
    }

    /// Loads the controller (`viewDidLoad()`) and makes the engine that drives the keyboard with
    /// its services.
    public func start() -> KeyholdEngine {
        viewDidLoad()
        return KeyholdEngine(services: services, configuration: configuration)
    }
}
