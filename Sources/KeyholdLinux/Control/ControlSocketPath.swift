import Glibc
import KeyholdKit

/// Where the control socket lives: `$KEYHOLD_CONTROL`, else `/run/keyhold/control`.
public enum ControlSocketPath {
    public static let system = "/run/keyhold/control"

    /// The path a daemon listens on.
    public static func forDaemon(environment env: [String: String] = currentEnvironment()) -> String {
        if let p = env["KEYHOLD_CONTROL"], !p.isEmpty { return p }
        return system
    }

    /// The path a client connects to (the same).
    public static func forClient(environment env: [String: String] = currentEnvironment()) -> String {
        forDaemon(environment: env)
    }

    public static func currentEnvironment() -> [String: String] {
        getenv("KEYHOLD_CONTROL").map { ["KEYHOLD_CONTROL": String(cString: $0)] } ?? [:]
    }
}
