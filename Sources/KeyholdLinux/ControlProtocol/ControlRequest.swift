import Glibc
import KeyholdKit

// The control socket protocol: newline-delimited JSON over a unix stream socket.
//
// Requests (one object per line, at most 4096 bytes):
//   {"cmd":"status"}                  -> {"ok":true,"pid":..,"paused":false,"keyboards":[...],...}
//   {"cmd":"reload"}                  -> {"ok":true,"configuration":"/etc/keyhold/config.toml"}
//                                        or {"ok":false,"error":"file:3: unknown key ..."}
//   {"cmd":"pause"} / {"cmd":"resume"} -> {"ok":true,"paused":true|false}
//   {"cmd":"monitor","content":true}  -> {"ok":true,"monitor":true,"content":true|false}, then
//                                        one event object per line (`MonitorEvent`) until the
//                                        client goes away; without content, the notices only.
//   {"cmd":"forget-picks"}            -> {"ok":true,"in_front":true|false}: any user, for their
//                                        own callout picks (their companions forget them too)
//   {"cmd":"reload-settings"}         -> {"ok":true,"companions":N}: any user: their companions
//                                        read their personal settings again and hand them over
//   {"cmd":"session"}                 -> {"ok":true,"in_front":true|false,"paused":..,...}: any user,
//                                        of their own session only: while it is in front, how
//                                        Keyhold types there and why, the application that has
//                                        the focus, the settings in force (`ControlSessionInfo`)
//   the session companion's requests and the daemon's events: `CompanionRequest`, `CompanionEvent`
//   (a companion's keymap is one line: up to 512 KiB).
// Errors: {"ok":false,"error":"..."}; a line over its limit gets the error and the connection is
// closed, as does a fourth refused request (docs/SECURITY.md).

public enum ControlRequest: Equatable, Sendable {
    case status, reload, pause, resume
    /// The sender's callout picks are forgotten (`keyhold picks --clear`).
    case forgetPicks
    /// The sender's companions read its personal settings again (`keyhold reload` as a user).
    case reloadSettings
    /// What Keyhold does in the sender's own session (the settings window).
    case session
    case monitor(content: Bool)
    /// A session companion's request.
    case companion(CompanionRequest)

    public static let commands = ["status", "reload", "pause", "resume", "monitor", "forget-picks", "reload-settings", "session"] + CompanionRequest.commands

    /// Parses one request line (without its newline).
    public init<C: Collection>(line: C) throws(ControlProtocolError) where C.Element == UInt8 {
        let value: JSONValue
        do { value = try JSONValue.parse(line) } catch { throw .malformed("malformed request: \(error)") }
        guard case .object = value else { throw .malformed("malformed request: expected a JSON object") }
        guard let cmd = value["cmd"] else { throw .malformed("malformed request: no \"cmd\"") }
        guard let name = cmd.stringValue else { throw .malformed("malformed request: \"cmd\" must be a string") }
        switch name {
        case "status": self = .status
        case "reload": self = .reload
        case "pause": self = .pause
        case "resume": self = .resume
        case "forget-picks": self = .forgetPicks
        case "reload-settings": self = .reloadSettings
        case "session": self = .session
        case "monitor":
            let content = value["content"]
            guard content == nil || content?.boolValue != nil || content == .null else {
                throw .malformed("malformed request: \"content\" must be true or false")
            }
            self = .monitor(content: content?.boolValue ?? false)
        case _ where CompanionRequest.commands.contains(name):
            self = .companion(try CompanionRequest(json: value, command: name))
        default:
            let shown = name.count > 40 ? String(name.prefix(40)) + "..." : name
            throw .unknownCommand("unknown command \"\(shown)\" (commands: \(ControlRequest.commands.joined(separator: ", ")))")
        }
    }

    /// The request line, newline included.
    public var line: String {
        switch self {
        case .status: return "{\"cmd\":\"status\"}\n"
        case .reload: return "{\"cmd\":\"reload\"}\n"
        case .pause: return "{\"cmd\":\"pause\"}\n"
        case .resume: return "{\"cmd\":\"resume\"}\n"
        case .forgetPicks: return "{\"cmd\":\"forget-picks\"}\n"
        case .reloadSettings: return "{\"cmd\":\"reload-settings\"}\n"
        case .session: return "{\"cmd\":\"session\"}\n"
        case .monitor(let content): return "{\"cmd\":\"monitor\",\"content\":\(content)}\n"
        case .companion(let request): return request.line
        }
    }
}

public enum ControlProtocolError: Error, Equatable, CustomStringConvertible {
    case malformed(String), unknownCommand(String)
    public var description: String {
        switch self { case .malformed(let m), .unknownCommand(let m): return m }
    }
}
