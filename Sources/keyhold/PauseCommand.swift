import ArgumentParser
import Glibc
import KeyholdLinux

struct PauseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause the daemon: every key passes through unchanged until `keyhold resume`.")

    @OptionGroup var control: ControlOptions

    func run() throws {
        _ = try control.run(.pause)
        print("paused: every key passes through unchanged (keyhold resume to resume)")
    }
}
