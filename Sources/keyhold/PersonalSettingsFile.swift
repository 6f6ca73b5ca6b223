import ArgumentParser
import Glibc
import KeyholdKit
import KeyholdLinux

/// The personal settings of the user running the command (`~/.config/keyhold/config.toml`), read
/// as their companion reads them for the daemon.
enum PersonalSettingsFile {
    /// The file and its text; nil when there is none. One that cannot be read exits 2.
    static func read() -> (file: String, text: String)? {
        guard let file = PersonalSettings.path(environment: environment) else { return nil }
        do throws(FileReadError) {
            return try PersonalSettings.read(file).text.map { (file, $0) }
        } catch {
            fail("\(file): cannot be read: \(error)", status: 2)
        }
    }

    /// Checks `text` as the personal file `file` laid over the system's configuration, as the
    /// daemon lays it; with an error, prints every one (each followed by `note`) and exits 2.
    static func check(_ text: String, file: String, note: String = "") throws {
        let errors = ConfigurationLoader.validate(personal: text, file: file, over: try ConfigurationFile.load(explicit: nil))
        guard errors.isEmpty else {
            for error in errors { writeStandardError("\(error)\(note)\n") }
            throw ExitCode(2)
        }
    }
}
