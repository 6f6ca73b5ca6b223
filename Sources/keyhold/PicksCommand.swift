import ArgumentParser
import Glibc
import KeyholdKit
import KeyholdLinux

/// `keyhold picks`: the callout candidates you picked, as `[callouts] order = "frequent"` orders
/// them; `--clear` forgets them. Run as yourself: the picks are in your home (your companion
/// keeps them), and the daemon forgets only the sender's.
struct PicksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "picks",
        abstract: "Show the callout candidates you picked most (what [callouts] order = \"frequent\" puts first), or forget them.")

    @Flag(help: "Forget your picks: your file, your companions' and (while your session is in front) the daemon's.")
    var clear = false

    @OptionGroup var control: ControlOptions

    func run() throws {
        guard let path = PicksFile.path(environment: environment) else {
            fail("no home directory ($HOME) to keep picks in")
        }
        let file = PicksFile(path: path)
        if clear {
            // The daemon first: it tells your companions, which would otherwise write the file again.
            let daemon = try? ControlClient(path: control.socketPath).request(.forgetPicks)
            do { try file.forget() } catch { fail(error.description) }
            let inFront = daemon?["in_front"]?.boolValue == true
            print("forgot your callout picks (\(path))" + (daemon == nil ? "; the daemon was not reached"
                                                            : inFront ? ", and the daemon's for your session" : ""))
            return
        }
        file.refresh()
        let picks = file.picks.sorted
        guard !picks.isEmpty else {
            print("no callout picks kept (\(path)); with [callouts] order = \"frequent\" your session's companion keeps them there")
            return
        }
        print("callout picks (\(path)), the most picked first:")
        for (candidate, count) in picks { print("  \(candidate)  \(count)") }
    }
}
