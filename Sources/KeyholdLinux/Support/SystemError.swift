import CLinuxShim
import Glibc

/// A failed system call, with its errno.
public struct SystemError: Error, CustomStringConvertible {
    public var call: String
    public var code: Int32
    public init(_ call: String, _ code: Int32) { self.call = call; self.code = code }
    public var description: String { "\(call): \(errorString(code))" }
}
