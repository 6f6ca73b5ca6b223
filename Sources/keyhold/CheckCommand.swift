import ArgumentParser
import Glibc
import KeyholdKit
import KeyholdLinux

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a configuration file: exit 0 when valid, 2 with every error (file, line, key) otherwise.",
        discussion: """
            Without a file, the one `keyhold run` would read; run as a user who has personal \
            settings (~/.config/keyhold/config.toml), those too, laid over it as the daemon lays them.
            """)

    @Argument(help: "The file to check (default: the one `keyhold run` would read).") var file: String?

    func run() throws {
        guard let path = ConfigurationFile.path(explicit: file) else {
            _ = try ConfigurationFile.load(explicit: nil)
            print("(embedded default): ok")
            try checkPersonalSettings()
            return
        }
        // Read as the daemon reads it: the same size limit, the same encoding check.
        let errors = ConfigurationLoader.validate(path: path)
        guard errors.isEmpty else {
            for error in errors { writeStandardError("\(error)\n") }
            throw ExitCode(2)
        }
        print("\(path): ok")
        if file == nil { try checkPersonalSettings() }
    }

    /// The user's own file, when they have one, over the system's.
    private func checkPersonalSettings() throws {
        guard getuid() != 0, let personal = PersonalSettingsFile.read() else { return }
        try PersonalSettingsFile.check(personal.text, file: personal.file)
        print("\(personal.file): ok (your settings, over the system's)")
    }
}
