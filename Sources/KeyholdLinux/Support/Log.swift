import Glibc

/// Journal-friendly logging: one line per message on stderr with an sd-daemon priority prefix
/// (`<6>keyhold: grabbed /dev/input/event3 "AT Translated Set 2 keyboard"`). journald turns the
/// prefix into the priority; on a terminal it stays readable. Never log key content.
public enum Log {
    public enum Level: Int32, Comparable, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    /// Messages above this level (numerically) are dropped. `KEYHOLD_DEBUG=1` turns on debug.
    nonisolated(unsafe) public static var maximumLevel: Level =
        getenv("KEYHOLD_DEBUG").map { String(cString: $0) == "1" } == true ? .debug : .info

    /// The name each line starts with.
    nonisolated(unsafe) public static var program = "keyhold"

    public static func error(_ message: @autoclosure () -> String) { write(.error, message()) }
    public static func warning(_ message: @autoclosure () -> String) { write(.warning, message()) }
    public static func notice(_ message: @autoclosure () -> String) { write(.notice, message()) }
    public static func info(_ message: @autoclosure () -> String) { write(.info, message()) }
    public static func debug(_ message: @autoclosure () -> String) {
        if maximumLevel >= .debug { write(.debug, message()) }
    }

    public static func write(_ level: Level, _ message: String) {
        guard level <= maximumLevel else { return }
        // One write(2) per line so lines from several processes never interleave.
        var line = "<\(level.rawValue)>\(program): "
        line += message.replacingNewlines()
        line += "\n"
        writeStandardError(line)
    }
}

/// Writes `text` to stderr as it is: in one write(2) when the pipe takes it whole, the rest after
/// a partial write, again after a signal interrupted it. (`keyhold`'s commands print their errors
/// with it: the binary does not link Foundation.)
public func writeStandardError(_ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 { if errno == EINTR { continue }; return }
        offset += n
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        guard contains(where: \.isNewline) else { return self }
        return String(map { $0.isNewline ? " " : $0 })
    }
}

/// `strerror` as a Swift string.
func errorString(_ code: Int32) -> String { String(cString: strerror(code)) }
