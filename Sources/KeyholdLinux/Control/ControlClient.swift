import CLinuxShim
import Glibc

/// A blocking client of the control socket, for the `keyhold status|reload|pause|resume|monitor`
/// commands (and tests):
///
///     let client = try ControlClient(path: ControlSocketPath.forClient())
///     let reply = try client.request(.status)          // {"ok":true,...}
public final class ControlClient {
    public let path: String
    public let fd: Int32

    /// Whether the daemon has closed its end (asked without waiting).
    public var peerClosed: Bool { keyhold_peer_closed(fd) == 1 }
    private var buffer: [UInt8] = []
    private var start = 0
    /// A reply line longer than this is an error (status replies are a few KiB).
    public var maximumLineBytes = 1 << 20

    public init(path: String) throws(ControlClientError) {
        self.path = path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var rc: Int32
        repeat { rc = ControlServer.withAddress(path) { connect(fd, $0, $1) } } while rc == -1 && errno == EINTR
        guard rc == 0 else {
            let code = rc == -2 ? ENAMETOOLONG : errno
            close(fd)
            throw .connect(path: path, code: code)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends one request and reads its reply (waiting up to `timeout` milliseconds; -1 forever).
    public func request(_ request: ControlRequest, timeout: Int32 = 10_000) throws(ControlClientError) -> JSONValue {
        try send(request)
        return try readReply(timeout: timeout)
    }

    public func send(_ request: ControlRequest) throws(ControlClientError) {
        try sendRaw(Array(request.line.utf8))
    }

    /// Writes bytes as they are (tests send malformed requests with it).
    public func sendRaw(_ bytes: [UInt8]) throws(ControlClientError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system("send", errno)
            }
            offset += n
        }
    }

    /// The next line as JSON.
    public func readReply(timeout: Int32 = 10_000) throws(ControlClientError) -> JSONValue {
        guard let line = try readLine(timeout: timeout) else { throw .closed }
        do { return try JSONValue.parse(line) } catch { throw .malformed("\(error)") }
    }

    /// The next line without its newline; nil when the daemon closed the connection.
    public func readLine(timeout: Int32 = -1) throws(ControlClientError) -> [UInt8]? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = Array(buffer[start..<newline])
                start = newline + 1
                if start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
                return line
            }
            if buffer.count - start > maximumLineBytes { throw .malformed("reply line over \(maximumLineBytes) bytes") }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pfd, 1, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .system("poll", errno)
            }
            if ready == 0 { throw .timeout }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { return nil }
                throw .system("read", errno)
            }
            if n == 0 {
                // A last line without its newline is incomplete (a client dropped as too slow
                // may get part of a line): it is not a message.
                buffer.removeAll()
                start = 0
                return nil
            }
            if start > 0 && start == buffer.count { buffer.removeAll(keepingCapacity: true); start = 0 }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}

public enum ControlClientError: Error, CustomStringConvertible, Equatable {
    case connect(path: String, code: Int32)
    case system(String, Int32)
    case timeout
    case closed
    case malformed(String)

    public var description: String {
        switch self {
        case .connect(let path, let code):
            switch code {
            case EACCES, EPERM:
                return "permission denied on \(path): run as root or join the keyhold group, which grants the control "
                    + "commands and no device (sudo usermod -aG keyhold $USER, then log in again)"
            case ENOENT, ECONNREFUSED:
                return "keyhold is not running (nothing listens on \(path)); start it with: sudo systemctl start keyhold"
            default:
                return "cannot connect to \(path): \(errorString(code))"
            }
        case .system(let call, let code): return "\(call): \(errorString(code))"
        case .timeout: return "the daemon did not answer in time"
        case .closed: return "the daemon closed the connection"
        case .malformed(let m): return "malformed reply from the daemon: \(m)"
        }
    }
}
