/// `keyhold run`'s options.
public struct DaemonOptions: Equatable, Sendable {
    public var config: String?
    public var control: String?
    public var verbose = false
    public var lockMemory = false

    public init(config: String? = nil, control: String? = nil, verbose: Bool = false, lockMemory: Bool = false) {
        self.config = config; self.control = control; self.verbose = verbose; self.lockMemory = lockMemory
    }

    /// `run` followed by nothing but its own options, each once (`--config PATH`, `--config=PATH`,
    /// `--control PATH`, `--verbose`, `--lock-memory`), read without ArgumentParser: building its
    /// command tree took 60-70 ms of a warm start in the QEMU guest, before the first key could
    /// pass, and a service starts exactly this. nil for anything else, which ArgumentParser reads
    /// (and explains, when it is wrong).
    public static func fastPath(_ arguments: ArraySlice<String>) -> DaemonOptions? {
        guard arguments.first == "run" else { return nil }
        var options = DaemonOptions(), seen = Set<Substring>()
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            let name = argument.prefix { $0 != "=" }
            guard seen.insert(name).inserted else { return nil }
            var value = argument.count > name.count ? String(argument.dropFirst(name.count + 1)) : nil
            switch name {
            case "--verbose", "--lock-memory":
                guard value == nil else { return nil }
                if name == "--verbose" { options.verbose = true } else { options.lockMemory = true }
            case "--config", "--control":
                if value == nil { value = rest.popFirst() }
                guard let value, !value.isEmpty, !value.hasPrefix("-") else { return nil }
                if name == "--config" { options.config = value } else { options.control = value }
            default:
                return nil
            }
        }
        return options
    }
}
