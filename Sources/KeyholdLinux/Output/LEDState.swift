/// Caps Lock, Num Lock and Scroll Lock.
public struct LEDState: Hashable, Sendable {
    public var numLock = false, capsLock = false, scrollLock = false
    public init(numLock: Bool = false, capsLock: Bool = false, scrollLock: Bool = false) {
        self.numLock = numLock; self.capsLock = capsLock; self.scrollLock = scrollLock
    }
}
