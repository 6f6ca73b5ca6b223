import CGLib
import Glibc

/// GLib's default main context, run inside the companion's own poll loop: GTK's picker overlay,
/// AT-SPI and IBus all dispatch there. `prepare` before the poll adds GLib's fds and timeout,
/// `dispatch` after it runs what they woke; always in pairs, and nothing else may call into GTK
/// in between (on Wayland, GDK's prepare holds a read of its display that a GTK round trip
/// would wait on forever).
final class GLibLoop {
    private let context: OpaquePointer
    private var fds = [GPollFD](repeating: GPollFD(), count: 32)
    private var count = 0
    private var priority: gint = 0

    init() {
        context = g_main_context_default()
        g_main_context_acquire(context)
    }

    /// GLib's fds for the next poll (as pollfds) and how long it may wait (ms; -1: no limit).
    func prepare() -> (fds: [pollfd], timeout: Int32) {
        g_main_context_prepare(context, &priority)
        var timeout: gint = -1
        var needed = Int(g_main_context_query(context, priority, &timeout, &fds, gint(fds.count)))
        if needed > fds.count {   // more sources than room: make room and ask again
            fds = [GPollFD](repeating: GPollFD(), count: needed * 2)
            needed = Int(g_main_context_query(context, priority, &timeout, &fds, gint(fds.count)))
        }
        count = min(needed, fds.count)
        return (fds.prefix(count).map { pollfd(fd: $0.fd, events: Int16(bitPattern: $0.events), revents: 0) }, timeout)
    }

    /// After the poll, with the revents of the fds `prepare` gave, in the same order.
    func dispatch(_ polled: ArraySlice<pollfd>) {
        for i in 0..<count { fds[i].revents = 0 }
        for (i, fd) in polled.prefix(count).enumerated() { fds[i].revents = gushort(bitPattern: fd.revents) }
        if g_main_context_check(context, priority, &fds, gint(count)) != 0 { g_main_context_dispatch(context) }
    }
}
