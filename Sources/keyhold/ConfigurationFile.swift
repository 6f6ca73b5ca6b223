import ArgumentParser
import Foundation
import KeyholdKit

/// Finds and loads the configuration the way every command does: `--config FILE`, else
/// `$XDG_CONFIG_HOME/keyhold/config.toml` for a user service (KEYHOLD_USER_CONFIG=1), else
/// `/etc/keyhold/config.toml`, else the embedded default.
enum ConfigurationFile {
    static let systemPath = "/etc/keyhold/config.toml"

    /// The file that applies, or nil for the embedded default.
    static func path(explicit: String?) -> String? {
        if let explicit { return explicit }
        let env = ProcessInfo.processInfo.environment
        if env["KEYHOLD_USER_CONFIG"] == "1" {
            let base = env["XDG_CONFIG_HOME"] ?? ((env["HOME"] ?? "") + "/.config")
            let user = base + "/keyhold/config.toml"
            if FileManager.default.fileExists(atPath: user) { return user }
        }
        return FileManager.default.fileExists(atPath: systemPath) ? systemPath : nil
    }

    /// Loads it; a broken file prints its error (file, line, key) and exits 2.
    static func load(explicit: String?) throws -> KeyholdConfiguration {
        do {
            guard let path = path(explicit: explicit) else {
                return try ConfigurationLoader.load(text: ConfigurationLoader.defaultText, file: "(embedded default)")
            }
            return try ConfigurationLoader.load(path: path)
        } catch {
            FileHandle.standardError.write(Data("keyhold: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}
