import ArgumentParser
import Glibc
import KeyholdKit
import KeyholdLinux

/// `keyhold set SETTING VALUE`, run as a user: one line of their own settings file, written the
/// way they would (comments and the rest kept), checked over the system's before it is written,
/// then handed to the daemon by their companion.
struct SetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change one of your own settings (~/.config/keyhold/config.toml), in force at once while your session is in front.",
        discussion: """
            SETTING is a table and a key, as in the configuration: gestures.long_press_ms, callouts.locales, \
            callouts.order, feedback.audio, bindings.f1, 'apps."foot".callouts'. VALUE is written as TOML \
            writes it (800, true, '["pl", "de"]'); a word alone is a string (frequent). The file keeps \
            its comments and everything else; an invalid result is not written.
            """)

    @Argument(help: "The setting, as gestures.long_press_ms.") var setting: String
    @Argument(help: "Its value, as TOML writes it; a word alone is a string.") var value: String

    @OptionGroup var control: ControlOptions

    func run() throws {
        guard getuid() != 0 else {
            fail("run it as the user whose settings it changes (the system's are \(ConfigurationLoader.systemPath))", status: 2)
        }
        guard let file = PersonalSettings.path(environment: environment) else {
            fail("no home directory ($HOME) to keep settings in", status: 2)
        }
        guard let path = TOMLPath.parse(setting), path.count >= 2,
              case let keys = path.compactMap({ if case .key(let k) = $0 { k } else { nil } }), keys.count == path.count else {
            fail("'\(setting)' is no setting: a table and a key, as gestures.long_press_ms", status: 2)
        }
        let literal = TOMLEdit.literal(value)
        let system = try ConfigurationFile.load(explicit: nil)
        var editor: PersonalSettingsEditor
        do throws(FileReadError) { editor = try PersonalSettingsEditor(file: file, system: system) } catch {
            fail("\(file): cannot be read: \(error)", status: 2)
        }
        do { try editor.set(keys, to: literal) } catch {
            switch error {
            case .cannotEdit(let why): fail(why, status: 2)
            case .invalid(let errors):
                for error in errors { writeStandardError("\(error) (not written)\n") }
                throw ExitCode(2)
            case .cannotWrite(let why): fail(why, status: 1)
            }
        }
        let companions = (try? ControlClient(path: control.socketPath).request(.reloadSettings))?["companions"]?.intValue ?? 0
        print("\(TOMLPath.string(path)) = \(literal) in \(file)"
              + (companions > 0 ? "; your keyhold-session hands it to the daemon now" : "; in force once your keyhold-session is connected"))
    }
}
