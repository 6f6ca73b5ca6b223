import KeyholdLinux

/// wlroots: a client cannot see another device's keys, but the daemon wrote them to the evdev
/// device before it handed the character over, so they wait readable in the compositor's input
/// fd. A round trip first: the compositor answers it from a loop pass whose poll already saw that
/// fd readable, and it reads an input fd to the end, so the keys are handled before the
/// character, which reaches it in a later pass. (Measured: without it, a compositor busy drawing
/// the picker let é overtake the BackSpace before it.)
final class RoundTripOrdering: KeyOrdering {
    private let display: DisplayConnection

    init(display: DisplayConnection) { self.display = display }

    /// Nothing to count: a round trip stands for it.
    func follow(device name: String) -> Bool { true }
    func resetCount() {}

    func start(count: UInt64, writtenAt: Int64?, now: Int64) throws(DisplayLost) {
        try display.startRoundTrip()
    }

    func check(now: Int64) -> OrderingState {
        display.roundTripAnswered ? .done(reached: true) : .waiting(until: nil, tellDaemon: false)
    }
}
