import ArgumentParser
import Glibc
import KeyholdLinux

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the running daemon's state: paused or not, configuration, layout, grabbed keyboards.",
        discussion: "Exit status 0 when the daemon answered, 1 when it is not running or cannot be reached.")

    @OptionGroup var control: ControlOptions
    @Flag(help: "Print the daemon's JSON reply as it is.") var json = false

    func run() throws {
        let reply = try control.run(.status)
        if json { print(reply); return }
        guard let status = ControlStatus(reply: reply) else { fail("malformed status reply: \(reply)") }
        var head = "keyhold"
        if let version = reply["version"]?.stringValue { head += " \(version)" }
        if let pid = reply["pid"]?.intValue { head += " (pid \(pid))" }
        if let ms = reply["uptime_ms"]?.doubleValue { head += ", running for \(StatusCommand.duration(ms / 1000))" }
        say(head)
        say("state: " + (status.paused ? "paused (every key passes through unchanged; `keyhold resume` to resume)" : "active"))
        say("configuration: \(status.configuration)")
        var output = "layout: \(status.layout)"
        if !status.unicodeMethod.isEmpty { output += ", unicode method: \(status.unicodeMethod)" }
        if !status.locale.isEmpty { output += ", callout locale: \(status.locale)" }
        say(output)
        say("virtual keyboard: \(status.virtualKeyboard ?? "(no event node)")")
        let grabbed = status.keyboards.filter(\.grabbed).count
        say("keyboards: \(grabbed) grabbed" + (status.keyboards.count > grabbed ? ", \(status.keyboards.count - grabbed) waiting" : ""))
        for k in status.keyboards {
            say("  \(k.grabbed ? "grabbed" : "waiting")  \(k.path)  \(k.id)  \"\(k.name)\"")
        }
        if let monitors = reply["monitors"]?.intValue { say("monitors: \(monitors)") }
        for (key, value) in status.extra { say("\(key): \(value)") }
    }

    /// A line of the status, its names made safe for the terminal (they come from USB devices,
    /// keymaps and the session's programs).
    private func say(_ line: String) { print(line.terminalSafe) }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds)
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        if s < 86400 { return "\(s / 3600) h \(s % 3600 / 60) min" }
        return "\(s / 86400) d \(s % 86400 / 3600) h"
    }
}
