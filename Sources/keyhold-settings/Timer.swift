import CSettingsWindow

/// A GLib timeout calling `fire` once after `milliseconds` (again while it returns true); cancel
/// it by `cancel()` or by dropping it.
final class Timer {
    private var source: UInt32 = 0
    private let fire: () -> Bool

    init(milliseconds: UInt32, _ fire: @escaping () -> Bool) {
        self.fire = fire
        source = khw_timeout(milliseconds, { context in
            let timer = Unmanaged<Timer>.fromOpaque(context!).takeUnretainedValue()
            let again = timer.fire()
            if !again { timer.source = 0 }
            return again ? 1 : 0
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    func cancel() { khw_cancel(source); source = 0 }
    deinit { cancel() }
}
