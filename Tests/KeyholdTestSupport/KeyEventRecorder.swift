import KeyholdKit

/// The fake virtual keyboard of tests: a `KeyEventOutput` that keeps every event it is sent, in
/// order, with the time its clock showed.
public final class KeyEventRecorder: KeyEventOutput {
    /// The time stamped on the events sent from now on: a test's virtual clock (zero unless moved).
    public var clock = Timestamp.zero
    public private(set) var transitions: [(key: KeyCode, state: KeyState, time: Timestamp)] = []

    public init() {}

    public func send(_ key: KeyCode, _ state: KeyState) { transitions.append((key, state, clock)) }

    /// Each event as `e down`, `leftshift up` or `x autoRepeat`.
    public var events: [String] { transitions.map { "\($0.key) \($0.state)" } }
}
