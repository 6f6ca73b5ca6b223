import Glibc
import KeyholdKit

/// A user's callout picks in their own home, for `[callouts] order = "frequent"`:
/// `$XDG_STATE_HOME/keyhold/picks` (else `~/.local/state/keyhold/picks`), one `COUNT<TAB>CANDIDATE`
/// line each, the most picked first. Their companion keeps it (the daemon never writes nor logs
/// picks) and hands it to the daemon when its session comes in front; `keyhold picks` shows it
/// and `--clear` forgets it. Each user's companions share it: it is read again when another
/// process (a second session, `keyhold picks --clear`) changed it.
public final class PicksFile {
    public let path: String
    /// What the file said when last read, with the picks counted since.
    public private(set) var picks = CalloutPicks()
    /// The file as last read or written (device, inode, size, modification time): read again when
    /// it differs.
    private var seen: [Int]?
    /// A file larger than this is not the companion's: it is read as far as it is.
    static let maximumBytes = 64 * 1024

    public init(path: String) { self.path = path }

    /// The user's file, from the XDG base directory variables (`environment`: getenv); nil without a home.
    public static func path(environment: (String) -> String?) -> String? {
        xdgBaseDirectory("XDG_STATE_HOME", fallback: "/.local/state", environment: environment).map { $0 + "/keyhold/picks" }
    }

    /// Reads the file again if it changed since (or was never read); a missing file is no picks.
    public func refresh() {
        let now = identity()
        guard now != seen else { return }
        seen = now
        guard now != nil, let bytes = try? readWholeFile(path, limit: Self.maximumBytes) else { picks.removeAll(); return }
        picks.replace(with: Self.parse(String(decoding: bytes, as: UTF8.self)))
    }

    /// One more pick of `candidate`, written at once (without waiting for the disk: a count lost
    /// in a crash costs little, a wait would hold the companion's loop).
    public func record(_ candidate: String) throws(SystemError) {
        refresh()
        picks.record(candidate)
        try replaceFile(path, with: Self.format(picks), durable: false)
        seen = identity()
    }

    /// Forgets every pick: the file goes.
    public func forget() throws(SystemError) {
        picks.removeAll()
        seen = nil
        guard unlink(path) == 0 || errno == ENOENT else { throw SystemError("unlink \(path)", errno) }
    }

    /// The lines' counts; a line that is not `COUNT<TAB>CANDIDATE` is skipped.
    public static func parse(_ text: String) -> [String: Int] {
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard fields.count == 2, let n = Int(fields[0]), n > 0 else { continue }
            counts[String(fields[1]), default: 0] += n
        }
        return counts
    }

    public static func format(_ picks: CalloutPicks) -> String {
        picks.sorted.map { "\($0.count)\t\($0.candidate)\n" }.joined()
    }

    private func identity() -> [Int]? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return [Int(status.st_dev), Int(status.st_ino), Int(status.st_size),
                Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec)]
    }
}
