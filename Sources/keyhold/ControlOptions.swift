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

func fail(_ message: String, status: Int32 = 1) -> Never {
    writeLine("keyhold: \(message)", fd: 2)
    exit(status)
}

/// One write(2) per line: monitor output reaches a pipe or file at once (stdio would buffer it).
func writeLine(_ text: String, fd: Int32 = 1) {
    var bytes = Array(text.utf8)
    bytes.append(0x0A)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 { if errno == EINTR { continue }; return }
        offset += n
    }
}
