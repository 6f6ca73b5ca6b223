import ArgumentParser
import Glibc
import KeyholdLinux

struct MonitorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "Watch the daemon's gestures and callouts as they happen.",
        discussion: """
            Prints one line per gesture (press, longPress, repeatPress, doubleTap, release) with its \
            action, and shows an open callout as its numbered candidates with the current one in \
            brackets:  [e]  1 è  2 é  3 ê ...  Keys, gestures and callouts are shown to root only (even \
            without its key, a gesture says when a key was pressed and held); other members of the \
            keyhold group see the daemon's notices (paused, resumed, reloaded, sleep, wake). Runs \
            until Ctrl+C or until the daemon stops.
            """)

    @OptionGroup var control: ControlOptions
    @Flag(inversion: .prefixedNo, help: "Ask for keys, gestures and callouts (granted to root only).")
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
        writeLine("keyhold: monitoring \(control.socketPath)" + (!granted ? " (keys, gestures and callouts hidden: only root sees them; showing the daemon's notices)" : "")
                  + "; Ctrl+C to stop", fd: 2)
        var view = MonitorView(showKeys: keys)
        while true {
            let line: [UInt8]?
            do { line = try client.readLine(timeout: -1) } catch { fail(error.description) }
            guard let line else { writeLine("keyhold: the daemon closed the connection", fd: 2); return }
            if json { writeLine(String(decoding: line, as: UTF8.self)); continue }
            guard let event = try? JSONValue.parse(line) else { continue }
            if let text = view.render(event) { writeLine(text.terminalSafe) }
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
            case "search":
                let found = (event["candidates"]?.arrayValue ?? []).compactMap(\.stringValue)
                let index = event["index"]?.intValue ?? 0, name = event["name"]?.stringValue ?? ""
                return "\(time)  search       \"\(event["query"]?.stringValue ?? "")\" "
                    + found.enumerated().map { $0.offset + 1 == index ? "[\($0.offset + 1)\($0.element)]" : "\($0.offset + 1)\($0.element)" }
                        .joined(separator: " ") + (name.isEmpty ? "" : "  \(name)")
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
