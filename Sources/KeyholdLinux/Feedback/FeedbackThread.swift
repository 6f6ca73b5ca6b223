import CLinuxShim
import Glibc
import KeyholdKit

/// A joinable pthread running one closure.
final class FeedbackThread {
    private var thread = pthread_t()
    private var joined = false

    private final class Body {
        let name: String
        let run: () -> Void
        init(name: String, _ run: @escaping () -> Void) { self.name = name; self.run = run }
    }

    /// Starts `body` on a new thread named `name` (at most 15 characters show); nil if the
    /// system refuses a thread.
    init?(name: String, _ body: @escaping () -> Void) {
        let context = Unmanaged.passRetained(Body(name: name, body)).toOpaque()
        let rc = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            _ = keyhold_name_thread(body.name)
            body.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
    }

    func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }
}
