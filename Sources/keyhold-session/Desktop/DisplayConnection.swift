/// The companion's connection to the display server (the X server, or the Wayland compositor):
/// what the desktop says (its keymap, the focused window, clicks) and round trips to it. Reading
/// never waits: the companion's loop polls `fd` and dispatches what came.
protocol DisplayConnection: AnyObject {
    /// Readable when the display server sent something.
    var fd: Int32 { get }
    /// Reads what the display server sent (`readable`: the fd polled readable; else only what the
    /// display library already holds); true when the desktop's keymap may have changed. Throws
    /// when the connection is gone.
    func dispatch(readable: Bool) throws(DisplayLost) -> Bool
    /// Starts a round trip: answered (`roundTripAnswered`, after a dispatch) once the display
    /// server has handled everything sent before it.
    func startRoundTrip() throws(DisplayLost)
    /// Whether the round trip last started is answered (true when none is under way).
    var roundTripAnswered: Bool { get }
    /// The desktop's keymap as XKB text, nil until known.
    func keymapText() -> String?
    /// The window that has the keyboard focus; nil when none has or the display server does not say.
    func focusedWindow() -> FocusedWindow?
    /// Pointer clicks anywhere in the session since the last call (0 where the display server
    /// does not say: a Wayland client sees only its own surfaces').
    func takeClicks() -> Int
    /// How often another window got the keyboard focus since the last call (0 where it does not
    /// say: a Wayland compositor without wlr-foreign-toplevel-management).
    func takeFocusChanges() -> Int
    /// Whether requests wait for the display server to read them (poll the fd for POLLOUT, then
    /// `flush`).
    var outputPending: Bool { get }
    func flush() throws(DisplayLost)
}

extension DisplayConnection {
    var outputPending: Bool { false }
    func flush() {}
}

/// The display server closed the connection.
struct DisplayLost: Error, CustomStringConvertible {
    var description: String { "the display server went away" }
}

/// A C target's state, owned here: the C side keeps none of its own (docs/ARCHITECTURE.md,
/// Session). Zeroed, at a stable address, until this goes.
final class CState<State> {
    let pointer: UnsafeMutablePointer<State>

    init(_ zero: State) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: zero)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
