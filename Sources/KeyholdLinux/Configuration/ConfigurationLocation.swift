import Glibc
import KeyholdKit

/// Which configuration applies, the same for every command, the daemon and its reloads:
/// `--config FILE`, else `/etc/keyhold/config.toml`, else the embedded default.
public enum ConfigurationLocation {
    /// How the embedded default is named where a file's path would be.
    public static let embeddedDefault = "(embedded default)"

    /// The file that applies, or nil for the embedded default.
    public static func path(explicit: String?) -> String? {
        if let explicit { return explicit }
        return access(ConfigurationLoader.systemPath, F_OK) == 0 ? ConfigurationLoader.systemPath : nil
    }

    /// Loads the configuration that applies, and where it came from.
    public static func load(explicit: String?) throws(ConfigurationError) -> (configuration: KeyholdConfiguration, source: String) {
        guard let path = path(explicit: explicit) else {
            return (try ConfigurationLoader.load(text: ConfigurationLoader.defaultText, file: embeddedDefault), embeddedDefault)
        }
        return (try ConfigurationLoader.load(path: path), path)
    }
}
