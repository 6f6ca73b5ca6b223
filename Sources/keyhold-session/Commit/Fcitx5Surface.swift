import CSessionKWin
import Glibc
import KeyholdKit
import KeyholdLinux

/// Commits characters through fcitx5, where it is the user's input method in KDE Plasma: to
/// its focused input context, through Keyhold's addon, which fcitx5 loads at its start
/// (`Fcitx5Link`). No engine is switched: the user's engine and its composition stay as they
/// were. fcitx5 handles the addon's lines in its one loop, and the addon answers a `sync` once the
/// compositor has handled what fcitx5 sent before it: its answer to one sent after a commit says
/// the commit went on to the program.
final class Fcitx5Surface: CommitSurface {
    let backend = "fcitx5"
    let capabilities: CompanionCapabilities = [.commitsText]
    let link = Fcitx5Link()
    private var refusals = CommitRefusals()
    private var deliveryID: UInt64?
    /// When to ask the addon again while it does not answer (monotonic µs), and the wait after that.
    private var connectAt: Int64 = 0
    private var connectDelay: Int64 = 1_000_000

    /// Where fcitx5 runs without Keyhold's addon (started before the package was installed).
    static let unreachable = "fcitx5 is your input method but Keyhold's addon in it does not answer: fcitx5 loads addons only at its start, so restart fcitx5 (or log in again) once after installing Keyhold; until then characters go through the daemon's ctrl-shift-u"

    init() {
        if !link.connect() { Log.notice(Self.unreachable) }
    }

    /// Whether fcitx5 runs in the session: its addon answers, or it holds its bus name.
    private static var isRunning: Bool { Fcitx5Link.isListening || khs_bus_name_has_owner("org.fcitx.Fcitx5") == 1 }

    /// Whether fcitx5 is the user's input method, running or not yet (a login starts it beside
    /// the companion): it runs, KWin's slot names it, or the session's environment does.
    static func isChosen(kwinSlot: KWinInputMethodSlot) -> Bool {
        if isRunning { return true }
        if case .other(let entry) = kwinSlot.holder(), entry.lowercased().contains("fcitx") { return true }
        return KWinInputMethodSlot.inputMethodChosenByEnvironment(environment)?.contains("fcitx") ?? false
    }

    var summary: String {
        "committing to fcitx5's focused input context through Keyhold's addon" + (link.version.map { " (fcitx5 \($0))" } ?? "")
            + ", the picker as its candidate list"
    }

    /// The addon's socket: what it says (keys that passed fcitx5, answers, the focus).
    var wakeFD: Int32? {
        reconnectIfDue()
        return link.isConnected ? link.fd : nil
    }
    func wake() { link.read() }

    func commit(_ scalars: ArraySlice<Unicode.Scalar>) -> CommitOutcome {
        reconnectIfDue()
        link.read()
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars)
        let committed = link.focus != .none && link.commit(String(text))
        refusals.note(committed: committed, through: "fcitx5",
                      why: link.isConnected ? "no input context has the focus in fcitx5" : "Keyhold's fcitx5 addon is not reachable")
        return committed ? .committed : .refused
    }

    func startDelivery() { deliveryID = link.sync() }
    var delivered: Bool {
        guard let id = deliveryID, link.isConnected else { return true }
        return link.synced >= id
    }

    /// What fcitx5 says has the focus: no input context (a game, a file list), a password, a
    /// terminal or text; nil while the addon does not answer.
    func focusedTextField() -> ApplicationFocus.TextField? {
        guard link.isConnected else { return nil }
        switch link.focus {
        case .none: return ApplicationFocus.TextField.none
        case .input(let purpose, _): return purpose == "password" ? .password : purpose == "terminal" ? .terminal : .normal
        }
    }

    func takeFocusChanges() -> Int { link.takeFocusChanges() }

    func restore() { link.disconnect(stopping: true) }

    var retryAt: Int64? { link.isConnected ? nil : connectAt / 1000 }
    var limitation: String? { link.isConnected ? nil : Self.unreachable }

    /// fcitx5 may start (or restart) after the companion (a login starts both): its addon is asked
    /// again after 1 s, then less and less often, every 30 s at most.
    private func reconnectIfDue() {
        guard !link.isConnected else { connectDelay = 1_000_000; return }
        let now = Companion.nowMicroseconds()
        guard now >= connectAt else { return }
        if !link.connect() {
            connectAt = now + connectDelay
            connectDelay = min(connectDelay * 2, 30_000_000)
        }
    }
}
