import ArgumentParser
import KeyholdKit
import KeyholdLinux

/// The configuration every command reads (`ConfigurationLocation`), with the commands' way of
/// failing: a broken file prints its error (file, line, key) and exits 2.
enum ConfigurationFile {
    /// The file that applies, or nil for the embedded default.
    static func path(explicit: String?) -> String? { ConfigurationLocation.path(explicit: explicit) }

    static func load(explicit: String?) throws -> KeyholdConfiguration {
        do {
            return try ConfigurationLocation.load(explicit: explicit).configuration
        } catch {
            writeStandardError("keyhold: \(error)\n")
            throw ExitCode(2)
        }
    }
}
