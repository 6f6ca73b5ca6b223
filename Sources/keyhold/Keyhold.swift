import ArgumentParser
import Glibc
import KeyholdKit

@main
struct Keyhold: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyhold",
        abstract: "KeyboardKit's action engine for physical keyboards on Linux: long-press accents, gestures, feedback.",
        version: KeyholdVersion.current,
        subcommands: [RunCommand.self, DevicesCommand.self, SimulateCommand.self, CheckCommand.self, ComposeFileCommand.self,
                      StatusCommand.self, ReloadCommand.self, PauseCommand.self, ResumeCommand.self, MonitorCommand.self,
                      FeedbackCommand.self]
    )
}

enum KeyholdVersion {
    static let current = "0.1.0"
}

/// Writes `text` to standard error (without Foundation, which `keyhold` does not link: its
/// libraries would be loaded on every start of the daemon).
func writeError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
