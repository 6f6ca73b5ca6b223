import KeyholdLinux

/// Keeps a character behind the keys Keyhold wrote before it. The daemon writes those keys to its
/// virtual keyboard and hands the character to the companion, whose way into the program is
/// another one: before committing, the companion waits for proof that the desktop has taken the
/// keys (`after` of them since the last character, the last that changes text written at
/// `writtenAt`). Each desktop proves it differently: the X server counts them (`XInputOrdering`),
/// a wlroots compositor has read them by its answer to a round trip (`RoundTripOrdering`), IBus
/// answers them (`IBusOrdering`), a Qt or GTK program under KWin speaks of its text
/// (`KWinOrdering`), fcitx5 counts them (`Fcitx5Ordering`).
///
/// Nothing waits: `start` begins, and `check`, called whenever the companion's loop wakes (the
/// display, the daemon, a timer), says how far it got.
protocol KeyOrdering: AnyObject {
    /// Starts following Keyhold's virtual keyboard (the device `name`); false when it cannot
    /// (then a character waits for nothing but the daemon's own pause).
    func follow(device name: String) -> Bool
    /// Counts from zero again: the daemon writes nothing while a character is unanswered, so
    /// each count stands alone.
    func resetCount()
    /// Begins the wait for `count` key transitions, the last that changes text written at
    /// `writtenAt` (CLOCK_MONOTONIC µs; nil: none did); `now` in µs.
    func start(count: UInt64, writtenAt: Int64?, now: Int64) throws(DisplayLost)
    /// How far the wait got at `now` (µs).
    func check(now: Int64) throws(DisplayLost) -> OrderingState
}

enum OrderingState: Equatable {
    /// Not yet: looked at again when the loop wakes, at `until` (µs) at the latest; `tellDaemon`:
    /// the desktop is busy, and the daemon is to be told the character still waits.
    case waiting(until: Int64?, tellDaemon: Bool)
    /// Over: the keys arrived (or the wait ran out without them: `reached` false).
    case done(reached: Bool)
}

/// How long a character waits for the keys before it to reach a desktop that is not busy (the
/// daemon waits 3 s for the acknowledgement, or for word that the companion still waits).
let orderTimeoutMicroseconds: Int64 = 1_000_000
