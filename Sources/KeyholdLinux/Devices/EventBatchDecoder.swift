import CEvdev
import Glibc
import KeyholdKit

/// Turns the `input_event`s of one read() into `DeviceEvent`s, keeping evdev's SYN_DROPPED rule
/// across reads: after SYN_DROPPED the events up to the next SYN_REPORT are incomplete and are
/// dropped, and the key state is then asked of the kernel (`.resynced`).
///
/// `.resynced` comes at the end of the read, after the events that followed that SYN_REPORT in
/// it. Asking the key state (EVIOCGKEY) also empties the reader's kernel queue of the key events
/// the state already counts (the kernel flushes them); the events already read are counted in it
/// too, but no longer in the queue. Handed on after the state was taken, a press among them
/// whose release the kernel had flushed left that key down for good, and its next press was taken
/// for one already down: a lost tap (run-e2e's soak, after the unthrottled flood). Handed on
/// before, they leave the keys passed on and the state in step.
struct EventBatchDecoder {
    /// Between SYN_DROPPED and the next SYN_REPORT.
    private var discarding = false

    mutating func decode(_ events: UnsafeBufferPointer<input_event>, _ body: (DeviceEvent) -> Void) {
        var resynced = false
        for ev in events {
            switch Int32(ev.type) {
            case EV_KEY where !discarding:
                body(.key(code: ev.code, value: ev.value, time: MonotonicClock.timestamp(ev.time)))
            case EV_SYN where Int32(ev.code) == SYN_DROPPED:
                discarding = true
                body(.dropped)
            case EV_SYN where Int32(ev.code) == SYN_REPORT:
                if discarding {
                    discarding = false
                    resynced = true
                } else {
                    body(.frameEnd)
                }
            default:
                break
            }
        }
        if resynced { body(.resynced) }
    }
}
