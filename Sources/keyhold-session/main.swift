import Glibc
import KeyholdLinux

// keyhold-session: Keyhold's companion in a graphical session (DESIGN.md, The session
// companion). Started by the systemd user unit keyhold-session.service (graphical-session.target)
// or the XDG autostart entry; one runs per session, a second start exits at once.

let usage = """
    usage: keyhold-session [--control PATH]

    Keyhold's companion in your graphical session: it connects to the keyhold daemon, reports
    your desktop's keymap and types the characters your layout lacks (X11: XTest). Started by
    systemd's keyhold-session.service or your desktop's autostart; you never need to run it.

      --control PATH   the daemon's control socket (default $KEYHOLD_CONTROL or /run/keyhold/control)
    """

Log.program = "keyhold-session"
var controlPath = ControlSocketPath.forClient()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--control":
        guard let path = arguments.popFirst() else { print(usage); exit(64) }
        controlPath = path
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        Log.error("unknown argument \(argument)")
        print(usage)
        exit(64)
    }
}

// One companion per session: the lock lives in the user's runtime directory, per display.
if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }) {
    let display = getenv("DISPLAY").map { String(cString: $0) } ?? ""
    let lock = open(runtime + "/keyhold-session\(String(display.map { $0 == "/" ? "_" : $0 })).lock",
                    O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    if lock >= 0, flock(lock, LOCK_EX | LOCK_NB) != 0 {
        Log.info("already running in this session")
        exit(0)
    }
}

guard getenv("DISPLAY") != nil else {
    let wayland = getenv("WAYLAND_DISPLAY") != nil
    Log.notice(wayland ? "a Wayland session without X: the Wayland backend is not built yet; the daemon types with ctrl-shift-u"
                       : "no graphical session (DISPLAY is not set)")
    exit(0)
}

let typist: X11Typist
do { typist = try X11Typist() } catch {
    Log.error("\(error)")
    exit(1)
}

nonisolated(unsafe) var stopRequested: sig_atomic_t = 0
for signo in [SIGTERM, SIGINT, SIGHUP] {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in stopRequested = 1 }
    sigemptyset(&action.sa_mask)
    action.sa_flags = 0   // no SA_RESTART: poll returns EINTR and the loop sees the flag
    sigaction(signo, &action, nil)
}
signal(SIGPIPE, SIG_IGN)

let companion = Companion(typist: typist, controlPath: controlPath)
companion.run { stopRequested != 0 }
Log.info("stopping; the keymap is as the desktop made it")
exit(0)
