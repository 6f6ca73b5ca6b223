// The control protocol's hand-written JSON against Foundation's Codable, for the two messages on
// the typing path with a session companion: the sound sent on every key, and the companion's
// acknowledgement of each character. Printed, not asserted.
import Foundation
import KeyholdLinux

private struct SoundEvent: Codable {
    var event = "sound", sound: String, volume: Double, at: Int
}

private struct TypedRequest: Codable {
    var cmd: String, id: UInt64, delivered: Bool
}

@MainActor func runJSONBenchmark() {
    let count = 200_000
    func measure(_ body: (Int) -> Int) -> (ns: Double, sink: Int) {
        let start = nowNanoseconds()
        var sink = 0
        for i in 0..<count { sink &+= body(i) }
        return (Double(nowNanoseconds() - start) / Double(count), sink)
    }
    var writer = JSONWriter(capacity: 128)
    let handEncode = measure { i in
        writer.reset()
        writer.beginObject()
        writer.key("event"); writer.rawString("sound")
        writer.key("sound"); writer.string("input")
        writer.key("volume"); writer.double(0.5)
        writer.key("at"); writer.int(i)
        writer.endObject()
        writer.newline()
        return writer.bytes.count
    }
    let line = Array(#"{"cmd":"typed","id":42,"delivered":true}"#.utf8)
    let handDecode = measure { _ in
        guard case .object(let o)? = try? JSONValue.parse(line) else { return 0 }
        return o.members.count
    }
    let rssBefore = residentKilobytes()
    let encoder = JSONEncoder(), decoder = JSONDecoder()
    let codableEncode = measure { i in
        (try? encoder.encode(SoundEvent(sound: "input", volume: 0.5, at: i)).count) ?? 0
    }
    let data = Data(line)
    let codableDecode = measure { _ in
        (try? decoder.decode(TypedRequest.self, from: data)).map { Int($0.id) } ?? 0
    }
    print("control protocol JSON, \(count) messages each (ns per message):")
    print("  sound event, encode:  hand-written \(Int(handEncode.ns))  Codable \(Int(codableEncode.ns))")
    print("  typed ack,   decode:  hand-written \(Int(handDecode.ns))  Codable \(Int(codableDecode.ns))")
    print("  RSS: \(rssBefore) kB before Codable, \(residentKilobytes()) kB after")
    _ = (handEncode.sink, handDecode.sink, codableEncode.sink, codableDecode.sink)
}
