import CLinuxShim
import Glibc
import KeyholdKit

/// Where the feedback engines send their log lines: a level and a message. The default writes
/// through `Log`; tests pass a closure that collects them.
public typealias FeedbackLogger = @Sendable (Log.Level, String) -> Void

public enum FeedbackLog {
    /// `Log.write`, the journal-friendly stderr logger.
    public static let standard: FeedbackLogger = { level, message in Log.write(level, message) }
}
