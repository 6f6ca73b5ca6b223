import Dispatch
import Foundation
import Glibc
@testable import KeyholdLinux

/// Waits up to `seconds` for `condition`, checking every 10 ms: for state another thread (the
/// event loop, a D-Bus peer) changes. Returns whether it became true.
func waitUntil(_ seconds: Double, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// An `EventLoop` running on its own thread; `sync` runs a closure on it and waits.
final class LoopThread: @unchecked Sendable {
    let loop: EventLoop
    private var wake: [Int32] = [-1, -1]
    private let lock = NSLock()
    private var queue: [() -> Void] = []
    private let finished = DispatchSemaphore(value: 0)
    private var running = true

    init() throws {
        loop = try EventLoop()
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &wake) == 0 else {
            throw SystemError("socketpair", errno)
        }
        try loop.watch(wake[0]) { [unowned self] in self.drain() }
        let thread = Thread { [self] in
            try? self.loop.run {}
            self.finished.signal()
        }
        thread.start()
    }

    private func drain() {
        var byte = [UInt8](repeating: 0, count: 256)
        while read(wake[0], &byte, 256) > 0 {}
        lock.lock()
        let work = queue
        queue.removeAll()
        lock.unlock()
        for w in work { w() }
    }

    func sync<T>(_ body: @escaping () throws -> T) rethrows -> T {
        let done = DispatchSemaphore(value: 0)
        var result: Result<T, Error>!
        lock.lock()
        queue.append { result = Result { try body() }; done.signal() }
        lock.unlock()
        var byte: UInt8 = 1
        _ = write(wake[1], &byte, 1)
        done.wait()
        switch result! {
        case .success(let v): return v
        case .failure(let e): try { throw e }()
        }
        fatalError("unreachable")
    }

    func stop() {
        guard running else { return }
        running = false
        sync { self.loop.stop() }
        finished.wait()
        close(wake[0]); close(wake[1])
    }
}

/// The log lines `body` wrote to stderr (fd 2 goes to a temporary file meanwhile).
func loggedLines(_ body: () -> Void) -> [String] {
    var template = Array("/tmp/keyhold-test-log.XXXXXX".utf8CString)
    let file = mkstemp(&template)
    precondition(file >= 0, "mkstemp failed")
    let path = String(cStringBuffer: template)
    defer { unlink(path) }
    let saved = dup(STDERR_FILENO)
    dup2(file, STDERR_FILENO)
    body()
    dup2(saved, STDERR_FILENO)
    close(saved)
    close(file)
    let text = (try? readWholeTextFile(path)) ?? ""
    return text.split(separator: "\n").map(String.init)
}
