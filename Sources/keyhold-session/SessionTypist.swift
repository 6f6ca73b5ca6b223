import KeyholdKit
import KeyholdLinux

/// What the companion types through: the desktop's own way to inject a character (X11: XTest on
/// a spare keycode; Wayland: a virtual keyboard with a keymap of its own), and where it reads
/// the desktop's keymap.
protocol SessionTypist: AnyObject {
    /// The backend's name the daemon is told ("x11", "wayland").
    var backend: String { get }
    /// What its way of typing can do, told the daemon in the hello.
    var capabilities: CompanionCapabilities { get }
    /// The display connection's fd: readable when the desktop sent something.
    var fd: Int32 { get }
    /// For the log line on connect: what the backend types with and how it keeps order.
    var summary: String { get }
    /// Reads what the desktop sent (`readable`: the fd polled readable); true when the desktop's
    /// keymap changed. Throws when the display connection is gone.
    func dispatch(readable: Bool) throws(DisplayLost) -> Bool
    /// Sends the events that type `text`; false when a character could not be typed.
    func type(_ text: String) throws(DisplayLost) -> Bool
    /// Waits until the display server has handled what `type` sent.
    func sync() throws(DisplayLost)
    /// Starts counting the display server's deliveries of the device `name`'s key transitions;
    /// false when it cannot (then a character waits for nothing but the daemon's own pause).
    func follow(device name: String) -> Bool
    /// Counts from zero again; true when what it read showed a new keymap.
    func resetCount() throws(DisplayLost) -> Bool
    /// Waits (at most `timeoutMilliseconds`) for `count` transitions since the count started,
    /// the last of them written at `writtenAt` (CLOCK_MONOTONIC µs, when the daemon says). A
    /// backend that can tell the desktop is busy rather than the keys gone may wait on, calling
    /// `stillWaiting` each time, so that the daemon waits too.
    func waitForTransitions(_ count: UInt64, writtenAt: Int64?, timeoutMilliseconds: Int64, stillWaiting: () -> Void) throws(DisplayLost) -> (reached: Bool, keymapChanged: Bool)
    /// Keycodes of the desktop's keymap that hold this process's characters (the daemon skips them).
    var temporaryKeycodes: [Int] { get }
    /// Pointer clicks anywhere in the session since the last call (0 where the backend cannot
    /// see them: a Wayland client sees only its own surfaces').
    func takeClicks() -> Int
    /// How often another window got the keyboard focus since the last call (0 where the backend
    /// cannot see it: a Wayland compositor without wlr-foreign-toplevel-management).
    func takeFocusChanges() -> Int
    /// The window that has the keyboard focus; nil when none has or the desktop does not say.
    func focusedWindow() -> FocusedWindow?
    /// What the input method says of the focused text field (IBus: its purpose, or none at
    /// all); nil where the backend cannot say (AT-SPI and the window then decide).
    func focusedTextField() -> ApplicationFocus.TextField?
    /// The desktop's keymap as XKB text, nil until known.
    func keymapText() -> String?
    /// Puts the desktop back as it was (when stopping).
    func restore()
}

extension SessionTypist {
    var capabilities: CompanionCapabilities { [] }
    func focusedTextField() -> ApplicationFocus.TextField? { nil }
}

/// The display server closed the connection.
struct DisplayLost: Error, CustomStringConvertible {
    var description: String { "the display server went away" }
}
