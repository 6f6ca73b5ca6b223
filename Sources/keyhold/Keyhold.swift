import ArgumentParser
import KeyholdKit
import KeyholdLinux

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

    /// ArgumentParser's entry, after a mark for `keyhold run`'s start timeline: the time before
    /// it is the loader's and the runtime's, the time after it until `arguments` is parsing.
    static func main() {
        StartupTimeline.mark("main")
        main(nil)
    }
}
