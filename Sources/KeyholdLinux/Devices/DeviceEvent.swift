import Glibc
import KeyholdKit

/// An event read from a device: a key event, a SYN_REPORT (frame end), or a resync note.
public enum DeviceEvent: Equatable {
    /// `time`: the kernel's stamp (CLOCK_MONOTONIC).
    case key(code: UInt16, value: Int32, time: Timestamp)
    case frameEnd
    /// SYN_DROPPED: the kernel dropped events; what was lost is made up at `.resynced` from the
    /// device's key state.
    case dropped
    case resynced
}

/// Why one read pass stopped: everything read (EAGAIN), the device gone (ENODEV), another error.
public enum DeviceReadEnd: Equatable { case drained, gone, failed(Int32) }
