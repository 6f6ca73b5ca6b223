import CSessionWayland
import KeyholdLinux

/// Types characters into a wlroots session (sway, Hyprland, river, labwc...) through a virtual
/// keyboard (zwp_virtual_keyboard_v1) on the compositor's connection, whose keymap holds exactly
/// the characters typed.
final class VirtualKeyboardSurface: CommitSurface {
    let backend = "wayland"
    private let display: WaylandDisplay

    init(display: WaylandDisplay) { self.display = display }

    var summary: String {
        "a virtual keyboard with a keymap of its own" + (display.followsFocus ? ", following the active window" : "")
    }

    func commit(_ scalars: ArraySlice<Unicode.Scalar>) throws(DisplayLost) -> CommitOutcome {
        for (typed, scalar) in scalars.enumerated() where khw_type(display.state.pointer, scalar.value) != 0 {
            if typed == 0 { return .refused }
        }
        try display.flush()   // what the socket cannot take now goes once it is writable
        return .committed
    }

    /// The compositor has handled the key events once it answers a round trip sent after them.
    func startDelivery() throws(DisplayLost) { try display.startRoundTrip() }
    var delivered: Bool { display.roundTripAnswered }
}
