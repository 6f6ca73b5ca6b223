import ArgumentParser
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
