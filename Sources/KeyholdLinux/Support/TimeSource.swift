import Glibc
import KeyholdKit

/// Now on CLOCK_MONOTONIC (the clock of device events and the deadline timer); a virtual clock in tests.
public protocol TimeSource {
    func now() -> Timestamp
}

/// The system's CLOCK_MONOTONIC.
public struct SystemTimeSource: TimeSource {
    public init() {}
    public func now() -> Timestamp { MonotonicClock.now() }
}
