import ArgumentParser
import Glibc
import KeyholdLinux

// `keyhold status|reload|pause|resume|monitor`: clients of the running daemon's control socket
// (/run/keyhold/control; $KEYHOLD_CONTROL or --control to use another). Root and members of
// the keyhold group may use it.

struct ControlOptions: ParsableArguments {
    @Option(name: .customLong("control"), help: ArgumentHelp(
        "The daemon's control socket (default: $KEYHOLD_CONTROL, else /run/keyhold/control).",
        valueName: "path"))
    var path: String?

    var socketPath: String { path ?? ControlSocketPath.forClient() }

    func connect() throws -> ControlClient {
        do { return try ControlClient(path: socketPath) } catch { fail(error.description) }
    }

    /// Sends `request` and returns the reply; a failed request prints its error and exits
    /// with `status`.
    func run(_ request: ControlRequest, failureStatus status: Int32 = 1) throws -> JSONValue {
        let client = try connect()
        let reply: JSONValue
        do { reply = try client.request(request) } catch { fail(error.description) }
        guard reply["ok"]?.boolValue == true else {
            fail(reply["error"]?.stringValue ?? "the daemon refused: \(reply)", status: status)
        }
        return reply
    }
}

private func fail(_ message: String, status: Int32 = 1) -> Never {
    writeLine("keyhold: \(message)", fd: 2)
    exit(status)
}

/// One write(2) per line: monitor output reaches a pipe or file at once (stdio would buffer it).
private func writeLine(_ text: String, fd: Int32 = 1) {
    var bytes = Array(text.utf8)
    bytes.append(0x0A)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 { if errno == EINTR { continue }; return }
        offset += n
    }
}

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
        print(head)
        print("state: " + (status.paused ? "paused (every key passes through unchanged; `keyhold resume` to resume)" : "active"))
        print("configuration: \(status.configuration)")
        var output = "layout: \(status.layout)"
        if !status.unicodeMethod.isEmpty { output += ", unicode method: \(status.unicodeMethod)" }
        if !status.locale.isEmpty { output += ", callout locale: \(status.locale)" }
        print(output)
        print("virtual keyboard: \(status.virtualKeyboard ?? "(no event node)")")
        let grabbed = status.keyboards.filter(\.grabbed).count
        print("keyboards: \(grabbed) grabbed" + (status.keyboards.count > grabbed ? ", \(status.keyboards.count - grabbed) waiting" : ""))
        for k in status.keyboards {
            print("  \(k.grabbed ? "grabbed" : "waiting")  \(k.path)  \(k.id)  \"\(k.name)\"")
        }
        if let monitors = reply["monitors"]?.intValue { print("monitors: \(monitors)") }
        for (key, value) in status.extra { print("\(key): \(value)") }
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds)
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        if s < 86400 { return "\(s / 3600) h \(s % 3600 / 60) min" }
        return "\(s / 86400) d \(s % 86400 / 3600) h"
    }
}

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

struct MonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Watch the daemon's gestures and callouts as they happen.",
        discussion: """
            Prints one line per gesture (press, longPress, repeatPress, doubleTap, release) with its \
            action, and shows an open callout as its numbered candidates with the current one in \
            brackets:  [e]  1 è  2 é  3 ê ...  Characters and key names are shown to root only; other \
            members of the keyhold group see gestures, action kinds and callout positions. Runs until \
            Ctrl+C or until the daemon stops.
            """)

    @OptionGroup var control: ControlOptions
    @Flag(inversion: .prefixedNo, help: "Ask for key names and characters (granted to root only).")
    var content = true
    @Flag(help: "Also print every key event read, forwarded and typed (with content).") var keys = false
    @Flag(help: "Print the daemon's JSON event lines as they are.") var json = false

    func run() throws {
        let client = try control.connect()
        let reply: JSONValue
        do { reply = try client.request(.monitor(content: content)) } catch { fail(error.description) }
        guard reply["ok"]?.boolValue == true else { fail(reply["error"]?.stringValue ?? "\(reply)") }
        let granted = reply["content"]?.boolValue ?? false
        if json { writeLine(reply.description) }
        writeLine("keyhold: monitoring \(control.socketPath)" + (content && !granted ? " (characters hidden: only root sees them)" : "")
                  + "; Ctrl+C to stop", fd: 2)
        var view = MonitorView(showKeys: keys)
        while true {
            let line: [UInt8]?
            do { line = try client.readLine(timeout: -1) } catch { fail(error.description) }
            guard let line else { writeLine("keyhold: the daemon closed the connection", fd: 2); return }
            if json { writeLine(String(decoding: line, as: UTF8.self)); continue }
            guard let event = try? JSONValue.parse(line) else { continue }
            if let text = view.render(event) { writeLine(text) }
        }
    }
}

/// Turns monitor events into lines; remembers the open callout so a move shows the whole list.
struct MonitorView {
    var showKeys: Bool
    private var base = ""
    private var candidates: [String] = []

    init(showKeys: Bool) { self.showKeys = showKeys }

    mutating func render(_ event: JSONValue) -> String? {
        let time = event["t"]?.doubleValue.map(MonitorView.seconds) ?? "        "
        switch event["event"]?.stringValue {
        case "gesture":
            let gesture = event["gesture"]?.stringValue ?? "?"
            if let key = event["key"]?.stringValue {
                return "\(time)  \(pad(gesture, 12)) \(pad(key, 10)) \(event["value"]?.stringValue ?? "")"
            }
            return "\(time)  \(pad(gesture, 12)) (\(event["action"]?.stringValue ?? "?"))"
        case "callout":
            switch event["action"]?.stringValue {
            case "open":
                base = event["base"]?.stringValue ?? ""
                candidates = (event["candidates"]?.arrayValue ?? []).compactMap(\.stringValue)
                return "\(time)  callout      " + line(index: event["index"]?.intValue ?? 0)
            case "move":
                return "\(time)  callout      " + line(index: event["index"]?.intValue ?? 0)
            case "close":
                defer { candidates = []; base = "" }
                if let text = event["text"]?.stringValue { return "\(time)  callout      closed: \(text)" }
                return "\(time)  callout      closed"
            default: return nil
            }
        case "input", "forwarded", "output":
            guard showKeys else { return nil }
            let what = ["input": "in", "forwarded": "forward", "output": "out"][event["event"]!.stringValue!]!
            return "\(time)  \(pad(what, 12)) \(pad(event["key"]?.stringValue ?? "?", 10)) \(event["state"]?.stringValue ?? "")"
        case "locale":
            return "\(time)  locale       \(event["locale"]?.stringValue ?? "?")"
        case "panic":
            return "\(time)  PANIC ESCAPE (Backspace+Escape+Enter): the daemon stops"
        case "notice":
            let detail = event["detail"]?.stringValue.map { ": \($0)" } ?? ""
            return "          \(event["notice"]?.stringValue ?? "notice")\(detail)"
        default:
            return nil
        }
    }

    /// `[e]  1 è  2 é  3 ê`, the shown candidate in brackets (index 0 is the base character).
    func line(index: Int) -> String {
        guard !candidates.isEmpty else {
            // Without key content (not root, or no --keys) only the position is known.
            return index == 0 ? "opened" : "candidate \(index)"
        }
        var parts = [index == 0 ? "[\(base)]" : base]
        for (i, c) in candidates.enumerated() {
            parts.append(i + 1 == index ? "[\(i + 1) \(c)]" : "\(i + 1) \(c)")
        }
        return parts.joined(separator: "  ")
    }

    static func seconds(_ ms: Double) -> String {
        let total = Int64(ms.rounded())
        let s = String(total / 1000), frac = String(total % 1000 + 1000).dropFirst()
        return String(repeating: " ", count: max(0, 8 - s.count - 4)) + s + "." + frac
    }

    private func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
    }
}
