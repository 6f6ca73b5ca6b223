import CLinuxShim
import Glibc
import KeyholdKit

/// SIGTERM, SIGINT and SIGHUP as a readable fd. The signals are blocked for the process so they
/// arrive only here (call before any other thread starts).
public final class SignalReader {
    public let fd: Int32

    public init(signals: [Int32]) throws(SystemError) {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        guard pthread_sigmask(SIG_BLOCK, &set, nil) == 0 else { throw SystemError("pthread_sigmask", errno) }
        fd = signalfd(-1, &set, keyhold_sfd_flags)
        guard fd >= 0 else { throw SystemError("signalfd", errno) }
    }

    deinit { close(fd) }

    /// The signals that arrived since the last call, in order.
    public func pending() -> [Int32] {
        var result: [Int32] = []
        var info = [UInt8](repeating: 0, count: Int(keyhold_signalfd_info_size))
        while true {
            let n = info.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n == Int(keyhold_signalfd_info_size) else { break }
            result.append(Int32(bitPattern: info.withUnsafeBytes { keyhold_signalfd_signo($0.baseAddress) }))
        }
        return result
    }
}
