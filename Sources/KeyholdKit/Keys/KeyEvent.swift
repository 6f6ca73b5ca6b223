
/// The value of an `EV_KEY` event.
public enum KeyState: Int32, Sendable {
    case up = 0, down = 1, autoRepeat = 2
}

/// One key transition as read from a keyboard.
public struct KeyEvent: Hashable, Sendable {
    public var code: KeyCode
    public var state: KeyState
    public var time: Timestamp
    public init(_ code: KeyCode, _ state: KeyState, at time: Timestamp) {
        self.code = code; self.state = state; self.time = time
    }
}
