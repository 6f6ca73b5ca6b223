/// Keyhold's version: written here and nowhere else. `keyhold --version` prints it, the daemon
/// logs it at start, and `make deb` reads it from the line below for the package's version (and
/// refuses a binary whose `--version` says otherwise).
enum KeyholdVersion {
    static let current = "0.1.0"
}
