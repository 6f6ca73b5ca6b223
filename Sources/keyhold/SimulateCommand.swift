import ArgumentParser
import KeyholdKit
import KeyholdLinux

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run the engine on a timed key script and print the text a program would show.",
        discussion: """
            Steps are separated by spaces: d:KEY (key down), u:KEY (key up), r:KEY (kernel repeat), \
            t:MS (time passes). KEY is the evdev key name without KEY_, in any case: e, leftshift, esc, \
            enter, 2, kp2, right, tab, backspace, leftctrl. No device is touched.
            Example: keyhold simulate 'd:e t:600 u:e t:50 d:2 t:30 u:2'   prints é
            """)

    @Argument(help: "The key script.") var script: String
    @Option(help: "Configuration file (default: /etc/keyhold/config.toml if present, else the built-in default).")
    var config: String?
    @Option(help: "Callout locale, e.g. fr or pl, as if the configuration said locales = [LOCALE] (default: the configured ones).")
    var locale: String?
    @Flag(help: "Also print every input, gesture, callout and output event with its time on stderr.") var trace = false

    func run() throws {
        var configuration = try ConfigurationFile.load(explicit: config)
        if let locale {
            guard configuration.callouts.isKnownLocale(locale) else { throw failure("unknown callout locale '\(locale)'") }
            configuration.callouts.locales = [locale]
        }
        // The daemon's layout, variant and options, on us where the daemon would read the
        // system's layout: a simulation does not depend on this machine's /etc/default/keyboard.
        let layout: KeyboardLayout
        do { (layout, _) = try KeyholdDaemon.makeLayout(configuration.output, files: []) } catch { throw failure("\(error)") }
        let parsed: SimulationScript
        do { parsed = try SimulationScript(script) } catch { throw failure("\(error)") }
        let simulator = Simulator(controller: KeyboardInputViewController.self, configuration: configuration, layout: layout, recordsTrace: trace)
        simulator.engine.onPanic = { writeStandardError("keyhold simulate: panic escape (the daemon would exit)\n") }
        let text = simulator.run(parsed)
        if trace {
            writeStandardError(simulator.trace.map(\.description).joined(separator: "\n") + "\n")
        }
        print(text)
    }

    /// Says what is wrong on stderr; the exit status for a bad script, locale or layout.
    private func failure(_ message: String) -> ExitCode {
        writeStandardError("keyhold simulate: \(message)\n")
        return ExitCode(2)
    }
}
