/// Runs the engine on a script against a `SimulatedApplication`, touching no device.
public final class Simulator: EngineObserver {
    public let application: SimulatedApplication
    public let engine: KeyholdEngine
    public private(set) var trace: [TraceEntry] = []
    /// Without, the engine runs as the daemon's does with no `keyhold monitor`: no key builds
    /// a trace entry (`EngineObserver.recordsKeys`).
    public var recordsTrace: Bool {
        didSet { engine.observersChanged() }
    }
    public var recordsKeys: Bool { recordsTrace }
    /// The controller whose services the engine runs, when made from one.
    public private(set) var controller: KeyboardInputViewController?

    public init(configuration: KeyholdConfiguration = KeyholdConfiguration(), layout: KeyboardLayout = USLayout(),
                keyboardContext: KeyboardContext? = nil, calloutContext: CalloutContext? = nil,
                recordsTrace: Bool = true) {
        application = SimulatedApplication(layout: layout, composeKey: configuration.output.composeKey)
        let recorder = OutputRecorder()
        engine = KeyholdEngine(configuration: configuration, output: recorder, layout: layout,
                               keyboardContext: keyboardContext, calloutContext: calloutContext)
        self.recordsTrace = recordsTrace
        recorder.simulator = self
        engine.addObserver(self)
    }

    /// A keyboard driven by a controller of this type, as the daemon drives one: its
    /// `viewDidLoad()` installs services before the first event.
    public init(controller type: KeyboardInputViewController.Type, configuration: KeyholdConfiguration = KeyholdConfiguration(),
                layout: KeyboardLayout = USLayout(), recordsTrace: Bool = true) {
        application = SimulatedApplication(layout: layout, composeKey: configuration.output.composeKey)
        let recorder = OutputRecorder()
        let controller = type.init(configuration: configuration, output: recorder, layout: layout)
        self.controller = controller
        engine = controller.start()
        self.recordsTrace = recordsTrace
        recorder.simulator = self
        engine.addObserver(self)
    }

    /// Runs the script's events; pending gestures fire up to the script's last time.
    @discardableResult
    public func run(_ script: SimulationScript, startingAt start: Timestamp = .zero) -> String {
        let (events, end) = script.events(startingAt: max(start, engine.now))
        for event in events { engine.handle(event) }
        engine.advance(to: end)
        return application.text
    }

    @discardableResult
    public func run(_ script: String) throws(SimulationScript.ParseError) -> String {
        run(try SimulationScript(script))
    }

    public func record(_ entry: TraceEntry) { if recordsTrace { trace.append(entry) } }

    /// The trace lines of one kind (`gesture`, `callout`, `out`, `forward`), without the kind
    /// word: `600ms callout close é` is `600ms close é` of kind `callout`.
    public func lines(_ kind: String) -> [String] {
        trace.map(\.description).compactMap { line -> String? in
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, parts[1] == kind else { return nil }
            return parts[0] + " " + parts[2]
        }
    }

    /// How many times a callout opened.
    public var calloutOpens: Int {
        trace.filter { if case .callout(.opened, _) = $0 { return true } else { return false } }.count
    }

    /// The gestures of the trace, as `key gesture action` lines.
    public var gestureLines: [String] {
        trace.compactMap { if case .gesture(let k, let g, let a, _) = $0 { return "\(k) \(g.rawValue) \(a.configString)" } else { return nil } }
    }

    /// Keeps the trace of what the engine sent, then hands it to the application.
    private final class OutputRecorder: KeyEventOutput {
        weak var simulator: Simulator?
        func send(_ key: KeyCode, _ state: KeyState) {
            guard let simulator else { return }
            simulator.record(.output(key, state, simulator.engine.now))
            simulator.application.send(key, state)
        }
    }
}
