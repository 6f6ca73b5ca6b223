import ArgumentParser
import Glibc
import KeyholdLinux

struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make the running daemon read its configuration again.",
        discussion: """
            The new configuration is applied only if it is valid; otherwise the running one stays and \
            the error (file, line, key) is printed. Exit status 0 when applied, 2 when the file has an \
            error, 1 when the daemon cannot be reached. Same as `systemctl reload keyhold` (SIGHUP), \
            which cannot tell you whether it worked.
            """)

    @OptionGroup var control: ControlOptions

    func run() throws {
        let reply = try control.run(.reload, failureStatus: 2)
        print("reloaded \(reply["configuration"]?.stringValue ?? "the configuration")")
    }
}
