// The picker's search, a keystroke at a time over the whole table (`CharacterSearchIndex`): what
// each letter typed into a query costs, beside a reference in the same run: one pass over the
// same characters' words that only adds them up (the walk the search cannot do without); and the
// name a picker shows for a callout's highlighted candidate; and the same with two callout
// locales' languages added (`localized`). Printed, not asserted.
import KeyholdKit

@MainActor func runCharacterSearchBenchmark() {
    let queries = ["euro", "heart", "arrow", "half", "e acute", "greek small letter alpha", "smiling face", "check mark",
                   "x", "zzz", "rightwards double arrow", "cœur", "billet", "herz"]
    var results = CharacterSearchResults(capacity: 90)
    let rssBefore = residentKilobytes()
    let buildStart = nowNanoseconds()
    let index = CharacterSearchIndex.english   // parsed on first use
    let buildMs = Double(nowNanoseconds() - buildStart) / 1e6
    var sink = 0
    func keystrokes(_ index: CharacterSearchIndex) -> [Double] {
        var keystrokeNs: [Double] = []
        for _ in 0..<20 {
            for text in queries {
                var query = CharacterSearchQuery()
                for character in text {
                    _ = query.append(character)
                    let t0 = nowNanoseconds()
                    index.search(query, into: &results)
                    keystrokeNs.append(Double(nowNanoseconds() - t0))
                    sink &+= results.count
                }
            }
        }
        return keystrokeNs
    }
    let keystrokeNs = keystrokes(index)
    let rssEnglish = residentKilobytes()
    let localizedStart = nowNanoseconds()
    let localized = CharacterSearchIndex.localized(["fr", "de"])   // the daemon makes it as it builds an engine
    let localizedMs = Double(nowNanoseconds() - localizedStart) / 1e6
    let localizedNs = keystrokes(localized)
    var referenceNs: [Double] = []
    for _ in 0..<keystrokeNs.count / 10 {
        let t0 = nowNanoseconds()
        sink &+= index.wordSum()
        referenceNs.append(Double(nowNanoseconds() - t0))
    }
    func percentiles(_ v: [Double]) -> String {
        let s = v.sorted()
        func p(_ q: Double) -> String { String(Int(s[min(s.count - 1, Int(Double(s.count) * q))] / 1000)) }
        return "p50 \(p(0.5)) µs  p99 \(p(0.99)) µs  max \(Int(s.last! / 1000)) µs"
    }
    // What a picker looks up on each open and move of a callout: the shown character's name.
    var nameNs: [Double] = []
    for _ in 0..<20 {
        for text in ["e", "è", "é", "ê", "ë", "ē", "ė", "ę", "Ł", "ß", "ñ", "€", "→", "½", "❤️", "😀"] {
            let t0 = nowNanoseconds()
            sink &+= index.name(of: text).utf8.count
            nameNs.append(Double(nowNanoseconds() - t0))
        }
    }
    print("character search: \(index.count) characters, \(keystrokeNs.count) keystrokes of \(queries.count) queries")
    print("  table parsed on first use: \(Int(buildMs)) ms; RSS \(rssBefore) kB before, \(rssEnglish) kB after")
    print("  per keystroke (search, best 90):    \(percentiles(keystrokeNs))")
    print("  with fr and de added (made in \(Int(localizedMs)) ms, RSS then \(residentKilobytes()) kB):")
    print("  per keystroke (search, best 90):    \(percentiles(localizedNs))")
    print("  reference (words summed, no match): \(percentiles(referenceNs))")
    print("  a callout candidate's name (picker): \(percentiles(nameNs))")
    _ = sink
}
