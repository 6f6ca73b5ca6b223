import Glibc
import KeyholdKit

/// What `FileWatcher.watch` returns, to stop watching with.
public typealias WatchToken = UInt64

/// Something that runs a handler when a file descriptor is readable: `EventLoop`.
public protocol FileWatcher: AnyObject {
    func watch(_ fd: Int32, handler: @escaping () -> Void) throws(SystemError) -> WatchToken
    func unwatch(_ token: WatchToken)
}
