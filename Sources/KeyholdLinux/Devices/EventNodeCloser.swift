import Glibc

/// Closes event nodes on a thread of its own. Closing an evdev node waits in the kernel for RCU
/// grace periods (evdev_detach_client, and input_close_device for a node's last reader): 17.7 ms
/// for the PS/2 keyboard in the TCG guest. The daemon opens every node to look at it, so on the
/// input thread each node that is no keyboard for it held up the grab of the next one, and a
/// mouse plugged in held up every key for as long. The thread and its pipe are made before the
/// first node is opened (`start`), so the daemon's open files do not grow later.
enum EventNodeCloser {
    nonisolated(unsafe) private static var started = false
    /// The pipe's write end the fds go through (-1: no thread, close in place).
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    nonisolated(unsafe) private static var thread: WorkerThread?

    /// Closes `fd`, on the closer thread (started on first use) where there is one. Nothing
    /// may use `fd` after this.
    static func close(_ fd: Int32) {
        if !started { start() }
        var value = fd
        let size = MemoryLayout<Int32>.size
        // A full pipe, or no thread: close it here.
        if writeEnd < 0 || Glibc.write(writeEnd, &value, size) != size { Glibc.close(fd) }
    }

    /// Starts the closer thread, once; without one, `close` closes in place.
    static func start() {
        guard !started else { return }
        started = true
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        let readEnd = ends[0]
        guard fcntl(ends[0], F_SETFD, FD_CLOEXEC) == 0, fcntl(ends[1], F_SETFD, FD_CLOEXEC) == 0,
              fcntl(ends[1], F_SETFL, O_NONBLOCK) == 0,
              let worker = WorkerThread(name: "keyhold-close", {
                  var fd: Int32 = -1
                  while true {
                      let n = Glibc.read(readEnd, &fd, MemoryLayout<Int32>.size)
                      if n == MemoryLayout<Int32>.size { Glibc.close(fd) } else if n < 0 && errno == EINTR { continue } else { return }
                  }
              })
        else {
            Glibc.close(ends[0]); Glibc.close(ends[1])
            return
        }
        thread = worker
        writeEnd = ends[1]
    }
}
