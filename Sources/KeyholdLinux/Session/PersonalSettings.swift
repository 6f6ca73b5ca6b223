import KeyholdKit

/// A user's personal settings as their companion handed them over: their file
/// (`~/.config/keyhold/config.toml`) and its text, nil when they have none. The hub lays them
/// over the system's configuration while the companion is the one in front
/// (`CompanionHub.layPersonalSettings`).
public struct PersonalSettings: Equatable, Sendable {
    public var file: String
    public var text: String?

    public init(file: String, text: String?) { self.file = file; self.text = text }

    /// The file at `path` as its user's companion hands it over: its text, nil when there is none
    /// (at most `ConfigurationLoader.maximumPersonalFileSize` bytes of UTF-8).
    public static func read(_ path: String) throws(FileReadError) -> PersonalSettings {
        do {
            return PersonalSettings(file: path, text: try readWholeTextFile(path, limit: ConfigurationLoader.maximumPersonalFileSize))
        } catch .system(.noSuchFileOrDirectory) {
            return PersonalSettings(file: path, text: nil)
        }
    }

    /// The user's file, from the XDG base directory variables (`environment`: getenv); nil without a home.
    public static func path(environment: (String) -> String?) -> String? {
        xdgBaseDirectory("XDG_CONFIG_HOME", fallback: "/.config", environment: environment).map { $0 + "/keyhold/config.toml" }
    }
}

/// Which personal settings are laid over which system configuration, for whose companion: the
/// hub lays them again when any of it changes, and drops an outcome that no longer applies.
struct PersonalSettingsLayer: Equatable {
    let companion: ObjectIdentifier
    let settings: PersonalSettings
    let system: KeyholdConfiguration
}
