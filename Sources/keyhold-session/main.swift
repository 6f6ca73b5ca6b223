import Glibc
import KeyholdLinux

// keyhold-session: Keyhold's companion in a graphical session (docs/ARCHITECTURE.md,
// Session). Started by the systemd user unit keyhold-session.service (graphical-session.target)
// or the XDG autostart entry; one runs per session, a second start exits at once.

let usage = """
    usage: keyhold-session [--control PATH] [--audio-device PCM]

    Keyhold's companion in your graphical session: it connects to the keyhold daemon, reports
    your desktop's keymap and types the characters your layout lacks (wlroots: a virtual
    keyboard; GNOME: IBus; KDE Plasma: KWin's input method; X11: XTest), shows the accent picker
    and plays the key sounds through your session's sound server. Started by systemd's
    keyhold-session.service, your desktop's autostart or KWin; you never need to run it.

      --control PATH        the daemon's control socket (default $KEYHOLD_CONTROL or /run/keyhold/control)
      --audio-device PCM    the ALSA device key sounds play on (default: default, your sound server)

    KDE Plasma: where no input method is selected, it selects Keyhold's by itself (once) and says so.
      --give-back-input-method   undo that: kwinrc as it was before (removing the package does it)
      --take-input-method        do it now, also after you cleared it (never replacing another one)
    """

Log.program = "keyhold-session"
var controlPath = ControlSocketPath.forClient()
var audioDevice = "default"
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--control":
        guard let path = arguments.popFirst() else { print(usage); exit(64) }
        controlPath = path
    case "--audio-device":
        guard let device = arguments.popFirst(), !device.isEmpty else { print(usage); exit(64) }
        audioDevice = device
    case "--give-back-input-method":
        exit(KDEInputMethodChoice.giveBack())
    case "--take-input-method":
        exit(KDEInputMethodChoice.take())
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        Log.error("unknown argument \(argument)")
        print(usage)
        exit(64)
    }
}

// A Wayland session is typed into through the compositor (its X clients included, through
// Xwayland); X11 only where there is no Wayland.
let wayland = environment("WAYLAND_DISPLAY").map { !$0.isEmpty } ?? false

// KWin starts the program its Virtual Keyboard setting names with a connection of its own that
// alone has the input method (WAYLAND_SOCKET, which connecting consumes).
let kwinInputMethod = wayland && environment("WAYLAND_SOCKET") != nil

// One companion per session (SessionLock).
let display = (wayland ? environment("WAYLAND_DISPLAY") : environment("DISPLAY")) ?? ""
if !SessionLock.acquire(display: display, takeOver: kwinInputMethod) {
    Log.info("already running in this session")
    exit(0)
}

let desktop: Desktop
do {
    desktop = try Desktop.open(wayland: wayland, kwinInputMethod: kwinInputMethod, currentDesktop: environment("XDG_CURRENT_DESKTOP"))
} catch let error as Desktop.Choice {
    Log.notice("\(error)")
    exit(0)
} catch {
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

switch desktop.picker {
case is IBusLookupTablePicker: Log.info("the picker shows as IBus's candidates, which the desktop draws at the text caret")
case is KWinPanelPicker: Log.info("the picker shows as KWin's input panel, under the text cursor")
case nil: Log.notice("no picker overlay in this session (no wlr-layer-shell on this Wayland compositor)")
default: if desktop.overlay?.followsCaret == true { Log.info("the picker shows at the text caret where applications report it (AT-SPI)") }
}
if let why = desktop.overlay?.accessibilityError {
    Log.notice("AT-SPI's registry has not answered yet (\(why)); asking again")
}
let companion = Companion(desktop: desktop, sound: SessionSound(device: audioDevice), controlPath: controlPath)
companion.run { stopRequested != 0 }
Log.info("stopping; the keymap is as the desktop made it")
exit(0)
