/// A user's XDG base directory (`XDG_CONFIG_HOME`, `XDG_STATE_HOME`, ...): the variable when it is
/// an absolute path (the specification ignores a relative one), else `$HOME` and `fallback`
/// (`/.config`); nil without a home. `environment`: getenv.
public func xdgBaseDirectory(_ variable: String, fallback: String, environment: (String) -> String?) -> String? {
    if let directory = environment(variable), directory.hasPrefix("/") { return directory }
    guard let home = environment("HOME"), home.hasPrefix("/") else { return nil }
    return home + fallback
}
