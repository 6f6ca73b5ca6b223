import KeyholdKit
import KeyholdLinux

extension SimulationFixture {
    /// What a run printed and traced.
    struct Outcome {
        var text: String
        /// Empty when driven as the daemon (no observer records keys there).
        var trace: [String]
        var held: [String]
        /// Every key event the program received, in order (`e down`).
        var events: [String]
        /// Every sound and haptic played, in order (`FeedbackLog`).
        var feedback: [String]

        /// The trace lines of one kind (`500ms callout open e …` is of kind `callout`).
        func lines(_ kind: String) -> [String] {
            trace.filter { $0.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) == kind }
        }
    }

    struct RunError: Error, CustomStringConvertible {
        var description: String
    }

    /// How a run drives the engine. The engine's quickest shortcuts for the standard services
    /// (typing a letter on press through `StandardWiring`, running a gesture and leaving its
    /// feedback for later) are taken only as the daemon drives it.
    enum Drive: String {
        /// As `keyhold simulate`: every key traced, feedback decided at once.
        case simulate = "as simulate runs it"
        /// As `keyhold run` (EngineFactory, KeyholdDaemon.endOfBatch): no observer records keys,
        /// the timer fires at each deadline, and each batch's feedback plays after its keys.
        case daemon = "as the daemon runs it"
    }

    /// What every run of the case starts from, read once: the configuration, the layout made
    /// from it (layouts do not change once made) and the script.
    struct Setup {
        var configuration: KeyholdConfiguration
        var layout: KeyboardLayout
        var script: SimulationScript
    }

    /// The case as `keyhold simulate` reads it (SimulateCommand.run): the configuration through the
    /// TOML loader (the embedded default when the case has none, never /etc/keyhold), then
    /// `--locale`, and the daemon's layout with no system file read.
    func setup() throws -> Setup {
        var configuration: KeyholdConfiguration
        do {
            configuration = try ConfigurationLoader.load(text: self.configuration ?? ConfigurationLoader.defaultText,
                                                         file: self.configuration == nil ? ConfigurationLocation.embeddedDefault : name)
        } catch { throw RunError(description: "configuration: \(error)") }
        if let locale {
            guard configuration.callouts.isKnownLocale(locale) else { throw RunError(description: "unknown callout locale '\(locale)'") }
            configuration.callouts.locales = [locale]
        }
        let layout: KeyboardLayout
        do { (layout, _) = try KeyholdDaemon.makeLayout(configuration.output, files: []) } catch { throw RunError(description: "\(error)") }
        let parsed: SimulationScript
        do { parsed = try SimulationScript(script) } catch { throw RunError(description: "script: \(error)") }
        return Setup(configuration: configuration, layout: layout, script: parsed)
    }

    /// Runs the case as `keyhold simulate` does: a keyboard controller's engine on `setup()`.
    func run() throws -> Outcome { try setup().run() }
}

extension SimulationFixture.Setup {
    /// Runs the case on a keyboard controller's engine, as `keyhold simulate` does, with the
    /// services of `subclassed` replaced by their no-override subclasses, driven as `drive` says.
    func run(subclassing subclassed: Set<StandardService> = [], drive: SimulationFixture.Drive = .simulate) -> SimulationFixture.Outcome {
        let traced = drive == .simulate
        // Contexts are given when the services are made, which a controller does with its own.
        let simulator = subclassed.contains(.contexts)
            ? Simulator(configuration: configuration, layout: layout,
                        keyboardContext: NoOverrideKeyboardContext(locales: configuration.callouts.locales),
                        calloutContext: NoOverrideCalloutContext(), recordsTrace: traced)
            : Simulator(controller: KeyboardInputViewController.self, configuration: configuration, layout: layout,
                        recordsTrace: traced)
        let services = simulator.engine.services
        StandardService.install(subclassed, in: services)
        let feedback = FeedbackLog()
        services.audioEngine = feedback
        services.hapticEngine = feedback
        switch drive {
        case .simulate: simulator.run(script)
        case .daemon: Self.runAsTheDaemon(script, on: simulator.engine)
        }
        return SimulationFixture.Outcome(
            text: simulator.application.text, trace: simulator.trace.map(\.description),
            held: simulator.application.keyState.downKeys.map(\.name),
            events: simulator.application.events.map { "\($0.key) \($0.state)" }, feedback: feedback.played)
    }

    /// The script's events as the daemon's loop takes them: one batch per key and per timer
    /// expiry (at each deadline before the next key), its deferred feedback played after it.
    private static func runAsTheDaemon(_ script: SimulationScript, on engine: KeyholdEngine) {
        engine.defersFeedback = true
        func fireTimer(upTo time: Timestamp) {
            while let deadline = engine.nextDeadline, deadline <= time {
                let before = engine.now
                engine.advance(to: deadline)
                engine.playDeferredFeedback()
                if deadline <= before { break }   // nothing moved: the key's own advance fires the rest
            }
        }
        let (events, end) = script.events(startingAt: engine.now)
        for event in events {
            fireTimer(upTo: event.time)
            engine.handle(event)
            engine.playDeferredFeedback()
        }
        fireTimer(upTo: end)
        engine.advance(to: end)
        engine.playDeferredFeedback()
    }
}

extension SimulationFixture {
    /// How `outcome` differs from what the case says it prints, traces and leaves held: one
    /// message per difference, naming what was expected and what came.
    func mismatches(in outcome: Outcome) -> [String] {
        var found: [String] = []
        if outcome.text != text {
            found.append("text: expected \(Self.quote(text)), got \(Self.quote(outcome.text))")
        }
        for (kind, expected) in traces {
            let got = outcome.lines(kind)
            if got != expected {
                found.append("trace \(kind):\n  expected:\n\(Self.block(expected))\n  got:\n\(Self.block(got))")
            }
        }
        if let held, held != outcome.held {
            found.append("held: expected \(Self.keys(held)), got \(Self.keys(outcome.held))")
        }
        return found
    }

    static func block(_ lines: [String]) -> String {
        lines.isEmpty ? "    (none)" : lines.map { "    " + $0 }.joined(separator: "\n")
    }

    static func keys(_ keys: [String]) -> String { keys.isEmpty ? "none" : keys.joined(separator: " ") }
}
