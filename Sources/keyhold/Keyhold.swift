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
                      FeedbackCommand.self, PicksCommand.self, SetCommand.self]
    )

    /// ArgumentParser's entry, after a mark for `keyhold run`'s start timeline: the time before
    /// it is the loader's and the runtime's, the time after it until `arguments` is parsing.
    /// `keyhold run` with its own options only goes straight to the daemon (`DaemonOptions.fastPath`).
    static func main() {
        StartupTimeline.mark("main")
        if let options = DaemonOptions.fastPath(CommandLine.arguments.dropFirst()) {
            do { try options.run() } catch { exit(withError: error) }
            return
        }
        main(nil)
    }
}
