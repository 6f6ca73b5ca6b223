import KeyholdKit
import KeyholdLinux

extension SimulationFixture {
    /// What a run printed and traced.
    struct Outcome {
        var text: String
        var trace: [String]
        var held: [String]

        /// The trace lines of one kind (`500ms callout open e …` is of kind `callout`).
        func lines(_ kind: String) -> [String] {
            trace.filter { $0.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) == kind }
        }
    }

    struct RunError: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs the case as `keyhold simulate` does (SimulateCommand.run): the configuration through
    /// the TOML loader (the embedded default when the case has none, never /etc/keyhold), then
    /// `--locale`, the daemon's layout with no system file read, and a keyboard controller's engine.
    func run() throws -> Outcome {
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
        let simulator = Simulator(controller: KeyboardInputViewController.self, configuration: configuration, layout: layout)
        let text = simulator.run(parsed)
        return Outcome(text: text, trace: simulator.trace.map(\.description),
                       held: simulator.application.keyState.downKeys.map(\.name))
    }
}
