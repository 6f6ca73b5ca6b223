import ArgumentParser
import Glibc
import KeyholdKit
import KeyholdLinux

struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make the running daemon read its configuration again.",
        discussion: """
            The new configuration is applied only if it is valid; otherwise the running one stays and \
            the error (file, line, key) is printed. Exit status 0 when applied, 2 when the file has an \
            error, 1 when the daemon cannot be reached. Same as `systemctl reload keyhold` (SIGHUP), \
            which cannot tell you whether it worked. Run as a user (not root), it is about your own \
            settings (~/.config/keyhold/config.toml): it checks them and has your keyhold-session hand \
            them to the daemon again (without the file, the system's are in force for you again); \
            --system reloads the system's file (root and group keyhold).
            """)

    @Flag(help: "Reload the system's file, not your personal settings.") var system = false

    @OptionGroup var control: ControlOptions

    func run() throws {
        if !system, getuid() != 0 {
            // Without a file (any more), the companion hands over none and the system's are in force
            let personal = PersonalSettingsFile.read()
            if let personal { try PersonalSettingsFile.check(personal.text, file: personal.file) }
            let connected = try control.run(.reloadSettings)["companions"]?.intValue ?? 0 > 0
            switch (personal, connected) {
            case (nil, _):
                print("you have no settings of your own: the system's are in force for you"
                      + (connected ? "" : " (no keyhold-session of yours is connected)"))
            case (let personal?, true):
                print("your settings (\(personal.file)) go to the daemon through your keyhold-session; in force while your session is in front")
            case (let personal?, false):
                print("\(personal.file) is valid; no keyhold-session of yours is connected: they apply once it is, while your session is in front")
            }
            return
        }
        let reply = try control.run(.reload, failureStatus: 2)
        print("reloaded \(reply["configuration"]?.stringValue ?? "the configuration")")
    }
}
