import CSessionOverlay
import KeyholdLinux

/// What the focused program says, through AT-SPI, of the keys it handled: that its text changed,
/// and that its main loop runs (it answers a call). IBusOrdering waits for it where a commit and
/// the keys before it take different ways in (CSessionOverlay's ProgramAnswer.c).
final class ProgramAnswers {
    private let state = CState(khc_state())

    /// nil where the session has no accessibility bus, or its registry does not answer.
    init?() {
        guard khc_start(state.pointer) == 1, khc_follow_text(state.pointer) == 1 else {
            let why = String(decoding: withUnsafeBytes(of: state.pointer.pointee.registry_error) { Array($0.prefix { $0 != 0 }) }, as: UTF8.self)
            Log.notice("AT-SPI cannot say when a program has handled keys (\(why.isEmpty ? "no accessibility bus" : why)): a character after keys waits for IBus and the compositor only")
            return nil
        }
    }

    /// Whether the program that has the focus has said its text changed since the companion started.
    var focusedSpeaks: Bool { khc_focused_speaks(state.pointer) == 1 }

    /// When the focused program last said text was deleted (or inserted), CLOCK_MONOTONIC µs.
    func changedAt(deleted: Bool) -> Int64 { khc_text_changed_at(state.pointer, deleted ? 1 : 0) }

    /// Asks the focused program something its main loop answers; false when nothing has the focus.
    func ask() -> Bool { khc_ping_start(state.pointer) == 0 }
    var answered: Bool { khc_ping_done(state.pointer) == 1 }
}
