import KeyholdKit
import KeyholdLinux

/// Where the companion puts a character for the focused program, as fcitx5's input context
/// frontends do, in a few calls: commit it, then learn once it was handled. XTest and a Wayland
/// virtual keyboard type it as a key of a keymap of their own; IBus and KWin's input method
/// commit it as text to the focused text input.
protocol CommitSurface: AnyObject {
    /// The backend's name the daemon is told ("x11", "wayland", "ibus", "kwin", "fcitx5").
    var backend: String { get }
    /// What it can do, told the daemon in the hello.
    var capabilities: CompanionCapabilities { get }
    /// For the log line on connect: what it types with.
    var summary: String { get }
    /// Puts `scalars` in front of the focused program, from the first on.
    func commit(_ scalars: ArraySlice<Unicode.Scalar>) throws(DisplayLost) -> CommitOutcome
    /// Starts proving the last commit handled: `delivered` once the desktop has handled it.
    func startDelivery() throws(DisplayLost)
    var delivered: Bool { get }
    /// Keycodes of the desktop's keymap that hold this process's characters (the daemon skips them).
    var temporaryKeycodes: [Int] { get }
    /// What the input method says of the focused text field (IBus: its purpose, or none at
    /// all); nil where it cannot say (AT-SPI and the window then decide).
    func focusedTextField() -> ApplicationFocus.TextField?
    /// How often another text input got the focus since the last call (0 where it cannot say).
    func takeFocusChanges() -> Int
    /// What else than the display the loop polls for this surface (IBus's eventfd: keys passed
    /// it; the fcitx5 addon's socket), and `wake` reads when it is readable.
    var wakeFD: Int32? { get }
    func wake()
    /// When the loop is to look again (monotonic ms) though nothing woke it: fcitx5's addon is
    /// asked again while it does not answer. nil: not waiting on a timer.
    var retryAt: Int64? { get }
    /// What it cannot do now and why, where that changes as it runs (`keyhold status` shows it).
    var limitation: String? { get }
    /// Puts the desktop back as it was (when stopping).
    func restore()
}

enum CommitOutcome: Equatable {
    /// All of it is on its way.
    case committed
    /// None of it can go (no program takes text from it now): the daemon types it.
    case refused
    /// The first `typed` went; the rest may go in `nanoseconds` (XTest: every spare keycode was
    /// used too recently to take another character).
    case wait(typed: Int, nanoseconds: Int64)
}

extension CommitSurface {
    var capabilities: CompanionCapabilities { [] }
    var temporaryKeycodes: [Int] { [] }
    func focusedTextField() -> ApplicationFocus.TextField? { nil }
    func takeFocusChanges() -> Int { 0 }
    var wakeFD: Int32? { nil }
    func wake() {}
    var retryAt: Int64? { nil }
    var limitation: String? { nil }
    func restore() {}
}
