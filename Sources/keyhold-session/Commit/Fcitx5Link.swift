import Glibc
import KeyholdLinux

/// The companion's connection to Keyhold's fcitx5 addon (addons/fcitx5), which fcitx5 loads at
/// its start and which listens on `$XDG_RUNTIME_DIR/keyhold-fcitx5` for this user only. One line a
/// message, fields split by tabs (`\t` `\n` `\\` escaped): the companion sends `commit ID TEXT`,
/// `sync ID`, `panel CURSOR AUX CANDIDATE...` and `hide`; the addon answers `hello fcitx5
/// VERSION`, `keys COUNT` (key events that passed fcitx5 since the connection), `committed ID` or
/// `refused ID`, `synced ID`, `picked INDEX`, `focus 0` or `focus 1 PURPOSE PROGRAM`, and `text
/// USEC` (the focused program said its text changed, at USEC on CLOCK_MONOTONIC). Nothing
/// here waits: a send that cannot go at once ends the connection, and it connects again.
final class Fcitx5Link {
    /// What the addon said has the focus: nothing (no input context), or a text input.
    enum Focus: Equatable {
        case none
        case input(purpose: String, program: String)
    }

    private(set) var fd: Int32 = -1
    /// fcitx5's version, once the addon said hello.
    private(set) var version: String?
    private(set) var keys: UInt64 = 0
    private(set) var focus = Focus.none
    /// The highest `synced` answer's id.
    private(set) var synced: UInt64 = 0
    private(set) var focusChanges = 0
    /// Counts the focus's moves (`ProgramTextAnswer`).
    private(set) var focusGeneration: UInt32 = 0
    /// When the focused program last said its text changed after a key (µs, CLOCK_MONOTONIC); 0:
    /// not since it got the focus. What comes before a key is no answer to one: KWin passes a
    /// program's text on as it gets the focus, Konsole's too, which then says nothing.
    private(set) var lastTextUpdate: Int64 = 0
    /// `keys` when the focus last moved.
    private var keysAtFocus: UInt64 = 0
    private var picks: [Int] = []
    private var nextID: UInt64 = 0
    private var input: [UInt8] = []
    /// What one read takes from the socket (kept: the ordering reads on every loop turn).
    private var chunk = [UInt8](repeating: 0, count: 4096)
    private let path: String?

    init() {
        path = environment("XDG_RUNTIME_DIR").map { $0 + "/keyhold-fcitx5" }
    }

    deinit { disconnect(stopping: true) }

    var isConnected: Bool { fd >= 0 }

    /// Connects if not connected; false when the addon does not listen (fcitx5 does not run, or
    /// runs without it).
    @discardableResult
    func connect() -> Bool {
        guard fd < 0, let path else { return fd >= 0 }
        guard let s = Self.open(path) else { return false }
        fd = s
        version = nil; keys = 0; keysAtFocus = 0; focus = .none; synced = 0; lastTextUpdate = 0; input.removeAll(); picks.removeAll()
        nextID = 0
        Log.info("connected to fcitx5's keyhold addon (\(path))")
        return true
    }

    /// Whether the addon listens now (connects, and lets go).
    static var isListening: Bool {
        guard let fd = environment("XDG_RUNTIME_DIR").flatMap({ open($0 + "/keyhold-fcitx5") }) else { return false }
        close(fd)
        return true
    }

    private static func open(_ path: String) -> Int32? {
        let s = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard s >= 0 else { return nil }
        // A Unix socket's connect does not wait: it is accepted into the backlog or refused.
        guard ControlServer.withAddress(path, { Glibc.connect(s, $0, $1) }) == 0 else { close(s); return nil }
        return s
    }

    /// Closes the connection; `stopping`: the companion stops, and nothing falls back.
    func disconnect(stopping: Bool = false) {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        if focus != .none { focusChanges += 1 }
        focus = .none
        if !stopping {
            Log.notice("the fcitx5 addon's connection ended; characters fall back to the daemon's method until it is back")
        }
    }

    /// Reads what the addon sent (its fd polled readable, or to catch up).
    func read() {
        guard fd >= 0 else { return }
        while fd >= 0 {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && errno == EAGAIN { break }
            guard n > 0 else { disconnect(); return }
            input += chunk[..<n]
        }
        var start = 0
        while let end = input[start...].firstIndex(of: UInt8(ascii: "\n")) {
            handle(Self.fields(input[start..<end]))
            start = end + 1
        }
        input.removeFirst(start)
    }

    private func handle(_ message: [String]) {
        switch (message.first ?? "", message.count) {
        case ("hello", 3...):
            version = message[2]
            Log.info("fcitx5 \(message[2]) answers through Keyhold's addon")
        case ("keys", 2):
            keys = UInt64(message[1]) ?? keys
        case ("synced", 2):
            synced = max(synced, UInt64(message[1]) ?? 0)
        case ("refused", 2):
            Log.notice("fcitx5 refused a character: no input context has the focus")
        case ("picked", 2):
            if let index = Int(message[1]) { picks.append(index) }
        case ("focus", 1...):
            let now: Focus = message.count >= 4 && message[1] == "1" ? .input(purpose: message[2], program: message[3]) : .none
            if now != focus {
                focusChanges += 1
                focusGeneration &+= 1
                lastTextUpdate = 0
                keysAtFocus = keys
            }
            focus = now
        case ("text", 2) where keys != keysAtFocus:
            lastTextUpdate = max(lastTextUpdate, Int64(message[1]) ?? 0)
        default:
            break
        }
    }

    /// Sends `fields` as one line; false when it could not go at once (then the link is closed).
    @discardableResult
    func send(_ fields: [String]) -> Bool {
        guard fd >= 0 else { return false }
        var line = fields.map(Self.escaped).joined(separator: "\t")
        line += "\n"
        let bytes = Array(line.utf8)
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        guard n == bytes.count else { disconnect(); return false }
        return true
    }

    /// Commits `text` to fcitx5's focused input context; false when it could not be sent.
    func commit(_ text: String) -> Bool {
        nextID += 1
        return send(["commit", String(nextID), text])
    }

    /// Asks for an answer after everything sent so far: its id, nil when it could not be sent.
    func sync() -> UInt64? {
        nextID += 1
        return send(["sync", String(nextID)]) ? nextID : nil
    }

    func takePick() -> Int? { picks.isEmpty ? nil : picks.removeFirst() }

    func takeFocusChanges() -> Int {
        defer { focusChanges = 0 }
        return focusChanges
    }

    static func escaped(_ field: String) -> String {
        guard field.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\\" }) else { return field }
        var out = ""
        for c in field {
            switch c {
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\\": out += "\\\\"
            default: out.append(c)
            }
        }
        return out
    }

    static func fields(_ line: ArraySlice<UInt8>) -> [String] {
        var out: [[UInt8]] = [[]]
        var escape = false
        for byte in line {
            if escape {
                out[out.count - 1].append(byte == UInt8(ascii: "t") ? 9 : byte == UInt8(ascii: "n") ? 10 : byte)
                escape = false
            } else if byte == UInt8(ascii: "\\") {
                escape = true
            } else if byte == 9 {
                out.append([])
            } else {
                out[out.count - 1].append(byte)
            }
        }
        return out.map { String(decoding: $0, as: UTF8.self) }
    }
}
