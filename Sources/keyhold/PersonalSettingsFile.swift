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
            return (file, try readWholeTextFile(file, limit: ConfigurationLoader.maximumPersonalFileSize))
        } catch .system(.noSuchFileOrDirectory) {
            return nil
        } catch {
            fail("\(file): cannot be read: \(error)", status: 2)
        }
    }
}
