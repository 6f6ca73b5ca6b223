/// The wait for the focused program's own word that the keys before a character changed its text:
/// the text-input state update a Qt or GTK program sends once its text changed, which an input
/// method sees (KWin's: `KWinOrdering`; fcitx5, as surrounding text: `Fcitx5Ordering`). A program
/// applies a commit at once but queues a key event it read (Qt, GTK on Wayland), so a character
/// committed after the keys' round trip alone can still go first. It waits as long as the program
/// is busy if it speaks of its text at all; for one that does not (Konsole sends nothing), as
/// long as the programs that do have recently needed to answer.
struct ProgramTextAnswer {
    /// Whether the focused program let the last wait run out; forgotten when the focus moves.
    private var ranOut = false
    private var focusGeneration: UInt32 = 0
    /// The last answers' delays (µs after the keys), newest at `nextAnswer`.
    private var answers = [Int64](repeating: 0, count: 8)
    private var nextAnswer = 0

    /// When the wait for an update after `writtenAt` (µs, CLOCK_MONOTONIC) ends; `lastUpdate`: the
    /// focused program's last update that answered keys (0: none since it got the focus,
    /// `generation`).
    mutating func end(writtenAt: Int64, now: Int64, lastUpdate: Int64, focusGeneration generation: UInt32) -> Int64 {
        if generation != focusGeneration {
            focusGeneration = generation
            ranOut = false
        }
        if !ranOut && lastUpdate > 0 { return writtenAt + Self.busyLimit }
        // A program that says nothing reads its keys in its own time, as the others answer in
        // theirs: twice the slowest recent answer, counted from now (the keys are on their way to
        // it), at least the moment below, at most the ordering's timeout.
        let least = ranOut ? Self.answerWait.silent : Self.answerWait.unknown
        return now + min(max(least, 2 * (answers.max() ?? 0)), orderTimeoutMicroseconds)
    }

    /// The wait is over (`answered`: the update came, `delay` µs after the keys): one that ran
    /// out is short next time; an answer's delay sets how long a silent program gets.
    mutating func finished(answered: Bool, delay: Int64, focusGeneration generation: UInt32) {
        if generation == focusGeneration { ranOut = !answered }
        guard answered else { return }
        answers[nextAnswer] = max(0, delay)
        nextAnswer = (nextAnswer + 1) % answers.count
    }

    /// How long after its keys a character waits for the focused program's state update: for a
    /// program that speaks of its text (its link counted an update since it got the focus: after
    /// a key through fcitx5, once its text changed twice through KWin), until
    /// it answers, however busy it is, up to `busyLimit` (the daemon waits 10 s while it is told
    /// the character still waits; Qt and GTK fields in the test guest's KDE answered 110–570 ms
    /// after the daemon wrote the keys, a stopped one as late as it was stopped); at least
    /// `silent` for one that let the last wait run out without answering (Konsole sends
    /// nothing), `unknown` for one not heard yet.
    static let answerWait = (unknown: Int64(150_000), silent: Int64(40_000))
    static let busyLimit = Int64(8_000_000)
}
