import Glibc

/// The process's environment variable `name`, or nil (getenv).
public func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
