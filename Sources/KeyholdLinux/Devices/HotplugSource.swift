import Glibc
import KeyholdKit

/// Tells when event nodes come and go (`HotplugMonitor`); `changes()` runs when `fd` is readable.
public protocol HotplugSource: AnyObject {
    var fd: Int32 { get }
    func changes() -> [HotplugChange]
    /// How it watches, for the log.
    var summary: String { get }
}

public enum HotplugChange: Equatable { case added(String), removed(String) }
