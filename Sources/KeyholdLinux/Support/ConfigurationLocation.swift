import Glibc
import KeyholdKit

/// Which configuration applies, the same for every command, the daemon and its reloads:
/// `--config FILE`, else `$XDG_CONFIG_HOME/keyhold/config.toml` for a user service
/// (KEYHOLD_USER_CONFIG=1), else `/etc/keyhold/config.toml`, else the embedded default.
public enum ConfigurationLocation {
    /// How the embedded default is named where a file's path would be.
    public static let embeddedDefault = "(embedded default)"

    /// The file that applies, or nil for the embedded default.
    public static func path(explicit: String?,
                            environment env: [String: String] = ConfigurationLocation.currentEnvironment()) -> String? {
        if let explicit { return explicit }
        if env["KEYHOLD_USER_CONFIG"] == "1" {
            let base = env["XDG_CONFIG_HOME"] ?? ((env["HOME"] ?? "") + "/.config")
            let user = base + "/keyhold/config.toml"
            if access(user, F_OK) == 0 { return user }
        }
        return access(ConfigurationLoader.systemPath, F_OK) == 0 ? ConfigurationLoader.systemPath : nil
    }

    /// The variables `path` reads, from this process's environment.
    public static func currentEnvironment() -> [String: String] {
        var env: [String: String] = [:]
        for name in ["KEYHOLD_USER_CONFIG", "XDG_CONFIG_HOME", "HOME"] {
            if let v = getenv(name) { env[name] = String(cString: v) }
        }
        return env
    }

    /// Loads the configuration that applies, and where it came from.
    public static func load(explicit: String?) throws(ConfigurationError) -> (configuration: KeyholdConfiguration, source: String) {
        guard let path = path(explicit: explicit) else {
            return (try ConfigurationLoader.load(text: ConfigurationLoader.defaultText, file: embeddedDefault), embeddedDefault)
        }
        return (try ConfigurationLoader.load(path: path), path)
    }
}
