import KeyholdLinux

/// Says in the log when an input method stops taking the companion's characters (no program's
/// text input has the focus) and when it takes them again: once each, not per character.
struct CommitRefusals {
    private var refusing = false

    /// Notes whether a commit went through; `why` says why it did not.
    mutating func note(committed: Bool, through method: String, why: @autoclosure () -> String) {
        guard committed == refusing else { return }
        refusing = !committed
        if refusing { Log.notice("\(why()): the daemon types with its fallback method") }
        else { Log.info("committing through \(method) again") }
    }
}
