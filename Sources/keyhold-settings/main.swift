import CSettingsWindow
import Glibc
import KeyholdKit
import KeyholdLinux

// keyhold-settings: a user's own Keyhold settings in a window (docs/ARCHITECTURE.md,
// Configuration). It changes ~/.config/keyhold/config.toml as `keyhold set` does, and the
// user's companion hands each change to the daemon at once.

let usage = """
    usage: keyhold-settings [--control PATH]

    Your own Keyhold settings: callout languages, the hold time, sounds and haptics, accents per
    application. Each change is written to your settings file (~/.config/keyhold/config.toml,
    your comments kept) and is in force at once while your session is in front.

      --control PATH   the daemon's control socket (default $KEYHOLD_CONTROL or /run/keyhold/control)
    """

Log.program = "keyhold-settings"
var controlPath = ControlSocketPath.forClient()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--control":
        guard let path = arguments.popFirst() else { print(usage); exit(64) }
        controlPath = path
    case "-h", "--help": print(usage); exit(0)
    default: print(usage); exit(64)
    }
}

guard getuid() != 0 else {
    print("keyhold-settings: run it as the user whose settings it changes (the system's are \(ConfigurationLoader.systemPath))")
    exit(2)
}
guard let file = PersonalSettings.path(environment: environment) else {
    print("keyhold-settings: no home directory ($HOME) to keep settings in")
    exit(2)
}
// The system's configuration the user's is laid over; with an error, the default's (and the
// window says so), as the daemon keeps running on its last good one.
var system = KeyholdConfiguration(), systemError: String?
do { system = try ConfigurationLocation.load(explicit: nil).configuration } catch { systemError = error.description }
let editor: PersonalSettingsEditor
do throws(FileReadError) { editor = try PersonalSettingsEditor(file: file, system: system) } catch {
    print("keyhold-settings: \(file): cannot be read: \(error)")
    exit(2)
}

/// The application's state, reached from GTK's activate callback.
final class Settings {
    let editor: PersonalSettingsEditor, daemon: DaemonSession, systemError: String?
    var window: SettingsWindow?
    init(editor: PersonalSettingsEditor, daemon: DaemonSession, systemError: String?) {
        self.editor = editor; self.daemon = daemon; self.systemError = systemError
    }
}
let settings = Settings(editor: editor, daemon: DaemonSession(controlPath: controlPath), systemError: systemError)
exit(khw_run("org.keyhold.Settings", { context, app in
    let settings = Unmanaged<Settings>.fromOpaque(context!).takeUnretainedValue()
    if settings.window == nil {
        settings.window = SettingsWindow(app: app!, editor: settings.editor, daemon: settings.daemon, systemError: settings.systemError)
    }
    settings.window?.present()
}, Unmanaged.passUnretained(settings).toOpaque()))
