import KeyholdLinux

/// Where the picker shows while a callout is open: the companion's own overlay, or the desktop's
/// input method (IBus's lookup table, which GNOME Shell draws at the caret).
protocol CandidatePicker: AnyObject {
    /// A callout event from the daemon (`{"event":"callout","action":"open"|"move"|"close",...}`).
    func handle(_ message: JSONValue)
    func hide()
    /// The candidate clicked since the last call (0: the base character).
    func takePick() -> Int?
    /// Whether the pointer is over the picker (a click there is the picker's own).
    var pointerInside: Bool { get }
}
