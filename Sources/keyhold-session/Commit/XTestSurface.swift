import CSessionX11
import KeyholdLinux

/// Types characters into an X11 session through XTest on the X server's connection: each one
/// gets a spare keycode (a keycode no keyboard has; given back when the companion stops).
final class XTestSurface: CommitSurface {
    let backend = "x11"
    private let display: X11Display

    init(display: X11Display) { self.display = display }

    var summary: String { "\(khx_spare_count(display.state.pointer)) spare keycodes" }

    func commit(_ scalars: ArraySlice<Unicode.Scalar>) -> CommitOutcome {
        defer { khx_flush(display.state.pointer) }
        for (typed, scalar) in scalars.enumerated() {
            let rc = khx_type(display.state.pointer, scalar.value)
            if rc > 0 { return .wait(typed: typed, nanoseconds: rc) }
            if rc < 0 && typed == 0 { return .refused }
        }
        return .committed
    }

    /// The server has delivered the key events once it answers a round trip sent after them.
    func startDelivery() { display.startRoundTrip() }
    var delivered: Bool { display.roundTripAnswered }

    /// X keycodes holding one of this process's characters: the daemon must not type with them.
    var temporaryKeycodes: [Int] {
        var codes = [UInt8](repeating: 0, count: 64)
        let n = Int(khx_temporary_keycodes(display.state.pointer, &codes, Int32(codes.count)))
        return codes.prefix(n).map(Int.init)
    }

    /// Gives the spare keycodes back.
    func restore() { display.restore() }
}
