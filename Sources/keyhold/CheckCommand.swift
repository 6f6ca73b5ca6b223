import ArgumentParser
import KeyholdKit
import KeyholdLinux

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a configuration file: exit 0 when valid, 2 with every error (file, line, key) otherwise.")

    @Argument(help: "The file to check (default: the one `keyhold run` would read).") var file: String?

    func run() throws {
        guard let path = ConfigurationFile.path(explicit: file) else {
            _ = try ConfigurationFile.load(explicit: nil)
            print("(embedded default): ok")
            return
        }
        // Read as the daemon reads it: the same size limit, the same encoding check.
        let errors = ConfigurationLoader.validate(path: path)
        guard errors.isEmpty else {
            for error in errors { writeStandardError("\(error)\n") }
            throw ExitCode(2)
        }
        print("\(path): ok")
    }
}
