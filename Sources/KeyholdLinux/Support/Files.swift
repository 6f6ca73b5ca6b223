import Glibc
import SystemPackage

/// The entry names of a directory (without . and ..), or nil when it cannot be read.
func opendirPath(_ path: String) -> [String]? {
    guard let dir = opendir(path) else { return nil }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// Why a whole file could not be read.
public enum FileReadError: Error, Equatable, CustomStringConvertible {
    case system(Errno), tooLarge(limit: Int), notUTF8
    public var description: String {
        switch self {
        case .system(let errno): return errorString(errno.rawValue)
        case .tooLarge(let limit): return "larger than \(limit >> 20) MiB"
        case .notUTF8: return "not valid UTF-8"
        }
    }
}

/// The whole file, at most `limit` bytes: the one reader for configuration, keymap names, sounds
/// and small system files. A read interrupted by a signal is retried.
public func readWholeFile(_ path: String, limit: Int = 1 << 20) throws(FileReadError) -> [UInt8] {
    do {
        let fd = try FileDescriptor.open(FilePath(path), .readOnly, options: .closeOnExec)
        return try fd.closeAfter {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: min(limit + 1, 65536))
            while true {
                let n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
                if n == 0 { return bytes }
                bytes += chunk[..<n]
                if bytes.count > limit { throw FileReadError.tooLarge(limit: limit) }
            }
        }
    } catch let error as FileReadError {
        throw error
    } catch let errno as Errno {
        throw .system(errno)
    } catch {
        throw .system(.ioError)
    }
}

/// The whole file as UTF-8 text (invalid UTF-8 is an error), at most `limit` bytes.
public func readWholeTextFile(_ path: String, limit: Int = 1 << 20) throws(FileReadError) -> String {
    let bytes = try readWholeFile(path, limit: limit)
    guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8 }
    return text
}

/// The whole (small) file as text, or nil: sysfs attributes, keymap names.
func readTextFile(_ path: String) -> String? { try? readWholeTextFile(path) }

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

/// `~/x` with $HOME; other paths unchanged.
func expandingTilde(_ path: String) -> String {
    guard path == "~" || path.hasPrefix("~/"), let home = getenv("HOME") else { return path }
    return String(cString: home) + path.dropFirst()
}

/// Replaces `path`'s content at once (a new file renamed over it, its mode kept), making its
/// directory where there is none. A symbolic link (a user's dotfiles) is followed, as KDE's own
/// writes follow it: the file it names is replaced, the link stays. Runs as the file's user only.
/// `durable`: on disk before the rename (fsync), for what must survive a crash.
public func replaceFile(_ link: String, with text: String, durable: Bool = true) throws(SystemError) {
    var path = link
    if let resolved = realpath(link, nil) {
        path = String(cString: resolved)
        free(resolved)
    }
    let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
    try makeDirectories(directory)
    var mode: mode_t = 0o600
    var status = stat()
    if lstat(path, &status) == 0 { mode = status.st_mode & 0o7777 }
    let temporary = "\(path).keyhold-\(getpid())"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    guard fd >= 0 else { throw SystemError("open \(temporary)", errno) }
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { let e = errno; close(fd); unlink(temporary); throw SystemError("write \(temporary)", e) }
        written += n
    }
    fchmod(fd, mode)
    guard !durable || fsync(fd) == 0, close(fd) == 0 else { let e = errno; unlink(temporary); throw SystemError("write \(temporary)", e) }
    guard rename(temporary, path) == 0 else { let e = errno; unlink(temporary); throw SystemError("rename \(temporary)", e) }
}

/// `mkdir -p` (mode 0700 for what it makes, as XDG's base directories are).
func makeDirectories(_ path: String) throws(SystemError) {
    guard !path.isEmpty, access(path, F_OK) != 0 else { return }
    try makeDirectories(String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]))
    guard mkdir(path, 0o700) == 0 || errno == EEXIST else { throw SystemError("mkdir \(path)", errno) }
}
