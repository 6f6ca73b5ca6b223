import CSessionX11
import KeyholdLinux

/// X11: the X server counts the key transitions of Keyhold's virtual keyboard it has delivered
/// (XInput 2 raw events, read as the display is dispatched): a character goes once it has
/// delivered as many as the daemon wrote before it.
final class XInputOrdering: KeyOrdering {
    private let display: X11Display
    private var count: UInt64 = 0
    private var deadline: Int64 = 0

    init(display: X11Display) { self.display = display }

    func follow(device name: String) -> Bool { khx_follow_device(display.state.pointer, name) == 1 }

    func resetCount() { khx_reset_count(display.state.pointer) }

    func start(count: UInt64, writtenAt: Int64?, now: Int64) {
        self.count = count
        deadline = now + orderTimeoutMicroseconds
    }

    func check(now: Int64) -> OrderingState {
        if khx_transitions_seen(display.state.pointer) >= count { return .done(reached: true) }
        return now >= deadline ? .done(reached: false) : .waiting(until: deadline, tellDaemon: false)
    }
}
