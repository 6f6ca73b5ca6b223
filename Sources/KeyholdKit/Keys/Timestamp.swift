/// A point in time on the monotonic clock, in microseconds. The engine never reads a clock:
/// every event carries its time and the caller says what `now` is, so tests run on a virtual clock.
public struct Timestamp: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var microseconds: Int64
    public init(microseconds: Int64) { self.microseconds = microseconds }
    public static func milliseconds(_ ms: Int64) -> Timestamp { Timestamp(microseconds: ms * 1000) }
    public static let zero = Timestamp(microseconds: 0)

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }
    public static func + (t: Timestamp, ms: Int) -> Timestamp { Timestamp(microseconds: t.microseconds + Int64(ms) * 1000) }
    public func adding(microseconds us: Int) -> Timestamp { Timestamp(microseconds: microseconds + Int64(us)) }
    /// The earlier of two deadlines, either of which may be absent (nil: nothing waits).
    @inline(__always) public static func earliest(_ a: Timestamp?, _ b: Timestamp?) -> Timestamp? {
        guard let a else { return b }
        guard let b else { return a }
        return Swift.min(a, b)
    }
    /// Milliseconds from `b` to `a`.
    public static func - (a: Timestamp, b: Timestamp) -> Double { Double(a.microseconds - b.microseconds) / 1000 }
    public var description: String {
        let ms = microseconds / 1000, frac = abs(microseconds % 1000)
        return frac == 0 ? "\(ms)ms" : "\(ms).\(String(frac + 1000).dropFirst())ms"
    }
}
