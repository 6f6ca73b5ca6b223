import ArgumentParser
import Glibc
import KeyholdLinux

struct ResumeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused daemon.")

    @OptionGroup var control: ControlOptions

    func run() throws {
        _ = try control.run(.resume)
        print("resumed")
    }
}
