import FuzzSupport
import KeyholdLinux

/// The control socket's request parser under libFuzzer: any line a local client sends is a
/// request or an error with a message, never a crash or a hang of the daemon that reads it.
@main
struct FuzzControlRequest {
    static func main() { runFuzzer(fuzzOne) }

    static let fuzzOne: FuzzInput = { data, size in
        guard let data, size <= 4096 else { return 0 }   // the server refuses longer lines first
        let line = UnsafeBufferPointer(start: data, count: size)
        do {
            _ = try ControlRequest(line: line)
        } catch {
            if String(describing: error).isEmpty { fatalError("an error without a message") }
        }
        return 0
    }
}
