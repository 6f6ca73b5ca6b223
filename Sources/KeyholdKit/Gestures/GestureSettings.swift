/// Gesture timing, in milliseconds (docs/ARCHITECTURE.md, Gestures).
public struct GestureSettings: Hashable, Sendable {
    public var longPressDelay: Int = 500
    public var repeatDelay: Int = 600
    public var repeatInterval: Int = 40
    public var doubleTapInterval: Int = 200
    public init() {}
    public init(longPressDelay: Int, repeatDelay: Int, repeatInterval: Int, doubleTapInterval: Int) {
        self.longPressDelay = longPressDelay; self.repeatDelay = repeatDelay
        self.repeatInterval = repeatInterval; self.doubleTapInterval = doubleTapInterval
    }
}
