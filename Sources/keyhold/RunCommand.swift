import ArgumentParser
import CLinuxShim
import Glibc
import KeyholdKit
import KeyholdLinux

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Grab keyboards and run the daemon.",
        discussion: """
            Grabs every keyboard matched by [devices], types through the uinput device \
            "\(VirtualKeyboard.deviceName)" and logs to stderr with journal priority prefixes. \
            SIGHUP reloads the configuration (applied only if valid); SIGTERM or SIGINT releases every \
            key, ungrabs and exits 0. Holding Backspace+Escape+Enter together on one keyboard also exits.
            Exit status: 0 after a clean stop, 1 when the daemon cannot run (no /dev/uinput), \
            2 for a broken configuration.
            """)

    @Option(help: "Configuration file (default: /etc/keyhold/config.toml if present, else the built-in default).")
    var config: String?

    @Option(help: ArgumentHelp("Control socket (default: $KEYHOLD_CONTROL, else /run/keyhold/control); \"none\" for no control socket.", valueName: "path"))
    var control: String?

    @Flag(help: "Also log debug lines (devices not grabbed and why).") var verbose = false

    @Flag(help: ArgumentHelp("Keep the daemon's memory in RAM (mlockall) once the keyboards are grabbed, so a key never waits for a page to come back from disk (keyhold.service sets this; needs LimitMEMLOCK or CAP_IPC_LOCK)."))
    var lockMemory = false

    func run() throws {
        try DaemonOptions(config: config, control: control, verbose: verbose, lockMemory: lockMemory).run()
    }
}

/// What `keyhold run` does with its options, whether ArgumentParser read them or
/// `DaemonOptions.fastPath` did.
extension DaemonOptions {
    func run() throws {
        StartupTimeline.mark("arguments")
        if verbose { Log.maximumLevel = .debug }
        let configuration = try ConfigurationFile.load(explicit: config)
        StartupTimeline.mark("configuration")
        let explicit = config
        let daemon: KeyholdDaemon
        do {
            // SIGHUP: the same lookup as at start (a file created since then is picked up).
            daemon = try KeyholdDaemon(configuration: configuration) { try ConfigurationLocation.load(explicit: explicit) }
        } catch {
            Log.error("\(error)")
            if case .configuration = error { throw ExitCode(2) }
            throw ExitCode(1)
        }
        daemon.controlPath = control == "none" ? nil : (control ?? ControlSocketPath.forDaemon())
        daemon.version = KeyholdVersion.current
        daemon.locksMemory = lockMemory
        let source = ConfigurationFile.path(explicit: config) ?? ConfigurationLocation.embeddedDefault
        daemon.configurationSource = source
        Log.info("keyhold \(KeyholdVersion.current) starting, configuration \(source)")
        // What systemd's filters cannot refuse by argument (docs/SECURITY.md): netlink but udev's,
        // the sound card control calls playback never makes.
        if keyhold_refuse_unneeded_calls() != 0 { Log.notice("cannot refuse the calls the daemon never needs: \(String(cString: strerror(errno)))") }
        let status = daemon.run()
        if status != 0 { throw ExitCode(status) }
    }
}
