import KeyholdKit

/// At most one log line per interval for something a client can make happen as often as it likes
/// (a refused connection, a malformed request): each line is a write on the input thread, and the
/// journal is every user's. The lines held back are counted and said with the next one.
struct LogRateLimit {
    let intervalMicroseconds: Int
    private var last: Timestamp?
    private var held = 0

    init(intervalMicroseconds: Int = 1_000_000) { self.intervalMicroseconds = intervalMicroseconds }

    /// Logs `message` at `level` unless a line went out within the interval before `now`.
    mutating func log(_ level: Log.Level, at now: Timestamp, _ message: @autoclosure () -> String) {
        if let last, now < last.adding(microseconds: intervalMicroseconds) {
            held += 1
            return
        }
        last = now
        let suffix = held > 0 ? " (and \(held) more like it held back)" : ""
        held = 0
        Log.write(level, message() + suffix)
    }
}
