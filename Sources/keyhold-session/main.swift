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
    case "-h", "--help":
        print(usage)
        exit(0)
    default:
        Log.error("unknown argument \(argument)")
        print(usage)
        exit(64)
    }
}

func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
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

let typist: SessionTypist
// What the companion cannot do here and why: the daemon's `keyhold status` shows it.
var limitation: String?
do {
    if kwinInputMethod {
        typist = try KWinTypist()
    } else if wayland {
        do throws(WaylandTypist.OpenError) {
            typist = try WaylandTypist()
        } catch .noVirtualKeyboard {
            // GNOME and KDE Plasma keep virtual keyboards to their own input methods: IBus is the
            // way in (GNOME runs it; elsewhere the user may).
            if environment("XDG_CURRENT_DESKTOP")?.contains("KDE") == true {
                limitation = "KWin did not start keyhold-session as its input method (another one, fcitx5 or none, is selected), so characters go through IBus where it runs, else through the daemon's ctrl-shift-u, which Qt programs ignore: select Keyhold in System Settings > Keyboard > Virtual Keyboard"
                Log.notice(limitation!)
            }
            typist = IBusTypist(seat: try WaylandTypist(virtualKeyboard: false))
        }
    } else if environment("DISPLAY") != nil {
        // GNOME on X11 runs IBus as on Wayland, and its programs take text through it; XTest
        // would type there too, but the picker would be an overlay of ours and accents would
        // race the keys IBus holds back. Elsewhere IBus is the way where it runs at the start.
        let gnome = environment("XDG_CURRENT_DESKTOP")?.split(separator: ":").contains("GNOME") == true
        typist = gnome || IBusTypist.isRunning ? IBusTypist(seat: try X11Typist()) : try X11Typist()
    } else {
        Log.notice("no graphical session (neither WAYLAND_DISPLAY nor DISPLAY is set)")
        exit(0)
    }
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

// The picker: through IBus, its lookup table, which the desktop draws at the caret; else an
// overlay of our own, GTK on the same display (its own connection).
// As KWin's input method, its input panel, which KWin places under the text cursor.
let overlay = typist is IBusTypist || typist is KWinTypist ? nil : PickerOverlay()
let picker: CandidatePicker?
switch typist {
case is IBusTypist: picker = IBusLookupTablePicker()
case is KWinTypist: picker = KWinPanelPicker()
default: picker = overlay
}
if typist is IBusTypist { Log.info("the picker shows as IBus's candidates, which the desktop draws at the text caret") }
else if typist is KWinTypist { Log.info("the picker shows as KWin's input panel, under the text cursor") }
else if overlay == nil { Log.notice("no picker overlay in this session (no wlr-layer-shell on this Wayland compositor)") }
else if overlay?.followsCaret == true { Log.info("the picker shows at the text caret where applications report it (AT-SPI)") }
if let why = overlay?.accessibilityError {
    Log.warning("AT-SPI's registry does not answer (\(why)): password fields and terminals are not told from other text fields; its accessibility bus is likely left from an earlier X11 login (a logout, then a login after the user's services have stopped, starts a new one)")
}
let companion = Companion(typist: typist, picker: picker, overlay: overlay, sound: SessionSound(device: audioDevice),
                          controlPath: controlPath, limitation: limitation)
companion.run { stopRequested != 0 }
Log.info("stopping; the keymap is as the desktop made it")
exit(0)
