/// Where the engine's key events go: the uinput virtual keyboard on Linux, a recorder in tests.
/// Each event is one key transition; the Linux side follows every event with SYN_REPORT.
public protocol KeyEventOutput: AnyObject {
    func send(_ key: KeyCode, _ state: KeyState)
}

/// One key transition, as a queue holds it.
public struct KeyTransition: Hashable, Sendable {
    public var key: KeyCode
    public var state: KeyState
    public init(_ key: KeyCode, _ state: KeyState) { self.key = key; self.state = state }
}

/// An output that can hand characters to the session companion (`keyhold-session`), in order
/// with its key events: the `OutputQueue`.
public protocol TextHandOffOutput: KeyEventOutput {
    /// Queues `text` for the companion. `fallback` types the same text with key events; it is
    /// used when no companion takes it or the companion does not answer in time.
    func handOff(_ text: String, fallback: [KeyTransition])
    /// Whether the companion commits whole strings to the focused program (an input method):
    /// text that needs it at all is then handed to it whole, so none of it takes another way in
    /// and overtakes the rest.
    var companionCommitsText: Bool { get }
}

extension TextHandOffOutput {
    public var companionCommitsText: Bool { false }
}
