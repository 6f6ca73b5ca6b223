// Engine throughput, printed not asserted: `swift run -c release KeyholdBenchmarks`.
// Feeds the pure engine recorded-like typing (forwarded and handled keys, rollover, callouts)
// and prints events per second, ns per event with percentiles per batch, and memory.
#if canImport(Glibc)
import Glibc
#endif
import KeyholdKit
import KeyholdLinux

/// Discards output events so only the engine is measured.
final class NullOutput: KeyEventOutput {
    var count = 0
    func send(_ key: KeyCode, _ state: KeyState) { count &+= 1 }
}

func nowNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func residentKilobytes() -> Int {
    guard let f = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), f) != nil {
        let s = String(cStringBuffer: line)
        if s.hasPrefix("VmRSS:") { return Int(s.split(separator: " ").dropFirst().first ?? "") ?? -1 }
    }
    return -1
}

/// One workload: a paragraph typed with rollover at `msPerKey`, plus a callout pick every
/// `calloutEvery` words.
func workload(words: Int, calloutEvery: Int) -> [KeyEvent] {
    let text = "the quick brown fox jumps over a lazy dog while users see accents appear "
    var events: [KeyEvent] = [], t: Int64 = 0
    var word = 0
    for c in text.cycled(words: words) {
        let key = c == " " ? KeyCode.space : KeyCode(name: String(c))!
        if c == " " { word += 1 }
        if c == " " && word % calloutEvery == 0 {
            events += [KeyEvent(.e, .down, at: .milliseconds(t)), KeyEvent(.e, .up, at: .milliseconds(t + 600)),
                       KeyEvent(.two, .down, at: .milliseconds(t + 650)), KeyEvent(.two, .up, at: .milliseconds(t + 700))]
            t += 720
        }
        events.append(KeyEvent(key, .down, at: .milliseconds(t)))
        events.append(KeyEvent(key, .up, at: .milliseconds(t + 60)))
        t += 80
    }
    return events
}

extension String {
    func cycled(words: Int) -> [Character] {
        var out: [Character] = [], count = 0
        while count < words { for c in self { out.append(c); if c == " " { count += 1; if count == words { break } } } }
        return out
    }
}

if getenv("KEYHOLD_BENCH_SEARCH_ONLY") != nil {
    runCharacterSearchBenchmark()
    exit(0)
}
if getenv("KEYHOLD_BENCH_PATH_ONLY") != nil {
    runDaemonPathBenchmark()
    exit(0)
}
let events = workload(words: 20_000, calloutEvery: 10)
let output = NullOutput()
let rssBefore = residentKilobytes()
var batchNs: [Double] = []
let batch = 1_000
let engine = KeyholdEngine(output: output)
let start = nowNanoseconds()
var i = 0
while i < events.count {
    let end = min(i + batch, events.count)
    let t0 = nowNanoseconds()
    for j in i..<end { engine.handle(events[j]) }
    batchNs.append(Double(nowNanoseconds() - t0) / Double(end - i))
    i = end
}
let total = Double(nowNanoseconds() - start)
batchNs.sort()
@MainActor func pct(_ p: Double) -> Double { batchNs[min(batchNs.count - 1, Int(Double(batchNs.count) * p))] }
print("engine: \(events.count) events (typing with rollover, a callout pick every 10 words)")
print("  events/s:        \(Int(Double(events.count) / (total / 1e9)))")
print("  ns/event mean:   \(Int(total / Double(events.count)))")
print("  ns/event per \(batch)-event batch: p50 \(Int(pct(0.5)))  p99 \(Int(pct(0.99)))  max \(Int(batchNs.last!))")
print("  output events:   \(output.count)")
print("  RSS: \(rssBefore) kB before, \(residentKilobytes()) kB after")
runDaemonPathBenchmark()
runFeedbackBenchmark()
runJSONBenchmark()
runCharacterSearchBenchmark()
