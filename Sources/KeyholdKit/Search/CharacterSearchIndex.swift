import Synchronization

/// Every character Unicode names and every emoji, findable by the words of its Unicode name and
/// CLDR's English name and keywords (`CharacterSearchData`, made by scripts/gen-search.py), and
/// by CLDR's in the languages of the callout locales a configuration names (`localized`).
///
/// Made once (`english`, about 35,000 characters) and never changed; a search walks it with the
/// caller's `CharacterSearchResults` and allocates nothing. A query's words each match the words
/// that begin with them: sorted, those are one range of word ids, so a character's words are
/// tested with two integer comparisons each.
public final class CharacterSearchIndex: @unchecked Sendable {
    /// The table built from `CharacterSearchData` (parsed on first use: the daemon's first search).
    public static let english = CharacterSearchIndex(words: CharacterSearchData.words, characters: CharacterSearchData.characters,
                                                     commonCount: CharacterSearchData.commonCount)

    /// The English table with the names and keywords of `locales`' languages added
    /// (`CharacterSearchLocaleData`): a query word matches an English word or theirs, and a
    /// character's name is the first language's that has one, else the English one. `english` for
    /// locales CLDR has no names in. Made once for a list of locales, and kept until another's is made.
    public static func localized(_ locales: [String]) -> CharacterSearchIndex {
        var languages: [String] = []
        for locale in locales {
            for language in CharacterSearchLocaleData.languages[locale] ?? [] where !languages.contains(language) {
                languages.append(language)
            }
        }
        guard !languages.isEmpty else { return english }
        return made.withLock { made in
            if let made, made.languages == languages { return made.index }
            let index = CharacterSearchIndex(english: english, adding: languages.compactMap { CharacterSearchLocaleData.tables[$0] })
            made = (languages, index)
            return index
        }
    }

    private static let made = Mutex<(languages: [String], index: CharacterSearchIndex)?>(nil)

    /// The folded words, end to end, and where each starts (one more: the end).
    private let wordBytes: [UInt8]
    private let wordStarts: [Int32]
    /// The generator's text of the characters, kept as given (a literal stays in the binary's
    /// read-only data, not copied), and per character where its line starts, its text ends and
    /// its name ends (three offsets each).
    private let source: String
    private let fields: [Int32]
    /// Per character: its words' ids, phrase after phrase, from `wordsStart[c]` to `wordsStart[c + 1]`;
    /// `phraseEnd` is set on a phrase's last word, `nameWord` on the words of its names (Unicode's,
    /// the emoji's, CLDR's in each language), which come before its keywords.
    private let characterWords: [UInt32]
    private let wordsStart: [Int32]
    /// Per word: the characters that have it, from `postingsStart[w]` to `postingsStart[w + 1]`.
    private let postingsStart: [Int32]
    private let postings: [UInt32]
    /// The characters before this are CLDR's or of the common blocks; after, other scripts' and
    /// combining marks: a word they have whole ranks after the common ones' prefixes (`he`: ❤️,
    /// heart, before the Yi syllable he).
    private let commonCount: Int
    /// Names in another language than English, where the table has one (`localized`).
    private let localizedNames: [Int32: String]
    private static let phraseEnd: UInt32 = 1 << 31, nameWord: UInt32 = 1 << 30, idMask: UInt32 = nameWord - 1

    public let count: Int

    /// What character `index` types.
    public func text(_ index: Int) -> String { sourceText(Int(fields[3 * index]), Int(fields[3 * index + 1])) }

    /// Character `index`'s name: CLDR's in the first of the table's languages that has one (`localized`),
    /// else CLDR's English name where it has one, else Unicode's, lowercase.
    public func name(_ index: Int) -> String {
        if let name = localizedNames[Int32(index)] { return name }
        let start = Int(fields[3 * index + 1]) + 1, end = Int(fields[3 * index + 2])
        if end > start { return sourceText(start, end) }
        var words: [String] = []
        for k in Int(wordsStart[index])..<Int(wordsStart[index + 1]) {
            let raw = characterWords[k]
            words.append(word(Int(raw & Self.idMask)))
            if raw & Self.phraseEnd != 0 { break }
        }
        return words.joined(separator: " ")
    }

    /// The name of the character that types `text`, "" if the table lacks it.
    public func name(of text: String) -> String { index(of: text).map(name) ?? "" }

    /// The character that types `text`, if the table has it.
    public func index(of text: String) -> Int? {
        let wanted = Array(text.utf8)
        return withSource { bytes in
            (0..<count).first { c in
                let start = Int(fields[3 * c]), end = Int(fields[3 * c + 1])
                return end - start == wanted.count && bytes[start..<end].elementsEqual(wanted)
            }
        }
    }

    private func word(_ id: Int) -> String {
        String(decoding: wordBytes[Int(wordStarts[id])..<Int(wordStarts[id + 1])], as: UTF8.self)
    }

    private func sourceText(_ start: Int, _ end: Int) -> String {
        withSource { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) }
    }

    private func withSource<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var source = self.source   // a native string: contiguous UTF-8
        return source.withUTF8(body)
    }

    /// Parses the generator's text: `words` one a line; `characters` one a line, TEXT, NAME and
    /// PHRASES separated by tabs (the names' phrases, then `;` and the keywords'; phrases separated
    /// by `,`, word ids in base 36 by ` `).
    /// `commonCount`: how many of the first characters are of the blocks most people type from
    /// (the rest rank after them, but for a phrase that is exactly the query).
    public convenience init(words: String, characters: String, commonCount: Int = .max) {
        var source = characters
        var fields: [Int32] = [], characterWords: [UInt32] = [], wordsStart: [Int32] = [0]
        source.withUTF8 { bytes in
            Self.parseLines(bytes) { line, phraseWords in
                fields.append(Int32(line.start)); fields.append(Int32(line.fieldEnds.0)); fields.append(Int32(line.fieldEnds.1))
                characterWords.append(contentsOf: phraseWords)
                wordsStart.append(Int32(characterWords.count))
            }
        }
        let (wordBytes, wordStarts) = Self.parseWords(words)
        self.init(wordBytes: wordBytes, wordStarts: wordStarts, source: source, fields: fields, characterWords: characterWords,
                  wordsStart: wordsStart, commonCount: commonCount, localizedNames: [:])
    }

    /// `english` with `languages`' tables (`CharacterSearchLocaleData.tables`): their words merged
    /// into its sorted ones, their phrases after each character's English ones, the first name.
    private convenience init(english: CharacterSearchIndex, adding languages: [(words: String, characters: String)]) {
        // Every word once, sorted by bytes; each table's ids mapped to the merged ones.
        let tables = [(english.wordBytes, english.wordStarts)] + languages.map { Self.parseWords($0.words) }
        var all: [ArraySlice<UInt8>] = []
        for (bytes, starts) in tables {
            for id in 0..<starts.count - 1 { all.append(bytes[Int(starts[id])..<Int(starts[id + 1])]) }
        }
        let merged = Array(Set(all)).sorted { $0.lexicographicallyPrecedes($1) }
        var ids: [ArraySlice<UInt8>: UInt32] = [:]
        for (id, word) in merged.enumerated() { ids[word] = UInt32(id) }
        var wordBytes: [UInt8] = [], wordStarts: [Int32] = [0]
        for word in merged { wordBytes.append(contentsOf: word); wordStarts.append(Int32(wordBytes.count)) }
        let mapping = tables.map { bytes, starts in
            (0..<starts.count - 1).map { ids[bytes[Int(starts[$0])..<Int(starts[$0 + 1])]]! }
        }
        func remapped(_ raw: UInt32, _ table: Int) -> UInt32 { mapping[table][Int(raw & Self.idMask)] | (raw & ~Self.idMask) }
        // Each character's English phrases, then the languages' in order; the first name given.
        var extra = [[UInt32]](repeating: [], count: english.count), names: [Int32: String] = [:]
        for (t, language) in languages.enumerated() {
            var characters = language.characters
            characters.withUTF8 { bytes in
                Self.parseLines(bytes) { line, phraseWords in
                    var c = 0
                    for byte in bytes[line.start..<line.fieldEnds.0] { c = c * 36 + Self.base36(byte) }
                    guard c < english.count else { return }
                    extra[c].append(contentsOf: phraseWords.map { remapped($0, t + 1) })
                    let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[line.fieldEnds.0 + 1..<line.fieldEnds.1]), as: UTF8.self)
                    if !name.isEmpty && names[Int32(c)] == nil { names[Int32(c)] = name }
                }
            }
        }
        var characterWords: [UInt32] = [], wordsStart: [Int32] = [0]
        characterWords.reserveCapacity(english.characterWords.count)
        for c in 0..<english.count {
            for k in Int(english.wordsStart[c])..<Int(english.wordsStart[c + 1]) { characterWords.append(remapped(english.characterWords[k], 0)) }
            characterWords.append(contentsOf: extra[c])
            wordsStart.append(Int32(characterWords.count))
        }
        self.init(wordBytes: wordBytes, wordStarts: wordStarts, source: english.source, fields: english.fields, characterWords: characterWords,
                  wordsStart: wordsStart, commonCount: english.commonCount, localizedNames: names)
    }

    private init(wordBytes: [UInt8], wordStarts: [Int32], source: String, fields: [Int32], characterWords: [UInt32], wordsStart: [Int32],
                 commonCount: Int, localizedNames: [Int32: String]) {
        self.wordBytes = wordBytes; self.wordStarts = wordStarts
        self.source = source; self.fields = fields; count = fields.count / 3
        self.characterWords = characterWords; self.wordsStart = wordsStart
        self.commonCount = commonCount; self.localizedNames = localizedNames
        // Which characters have each word, in the table's order.
        var postingsStart = [Int32](repeating: 0, count: wordStarts.count)
        for raw in characterWords { postingsStart[Int(raw & Self.idMask) + 1] += 1 }
        for id in 1..<postingsStart.count { postingsStart[id] += postingsStart[id - 1] }
        var next = postingsStart, postings = [UInt32](repeating: 0, count: characterWords.count)
        for c in 0..<count {
            for k in Int(wordsStart[c])..<Int(wordsStart[c + 1]) {
                let id = Int(characterWords[k] & Self.idMask)
                postings[Int(next[id])] = UInt32(c)
                next[id] += 1
            }
        }
        self.postingsStart = postingsStart; self.postings = postings
    }

    /// Words one a line: their bytes end to end, and where each starts (one more: the end).
    private static func parseWords(_ words: String) -> ([UInt8], [Int32]) {
        var wordBytes: [UInt8] = [], wordStarts: [Int32] = [0]
        for line in words.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            wordBytes.append(contentsOf: line)
            wordStarts.append(Int32(wordBytes.count))
        }
        return (wordBytes, wordStarts)
    }

    /// Where a line starts and its first two tab-separated fields end.
    private struct Line { var start = 0, fieldEnds = (0, 0) }

    /// Calls `body` for each line of `bytes`: two fields (text and name, or index and name), then
    /// the phrases' word ids (`phraseEnd` set on each phrase's last, `nameWord` on those before
    /// the `;` that begins the keywords).
    private static func parseLines(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (Line, [UInt32]) -> Void) {
        var field = 0, id: UInt32 = 0, inWord = false, line = Line(), words: [UInt32] = [], kind = nameWord
        func end() {
            if inWord { words.append(id | kind | phraseEnd) }
            body(line, words)
            words.removeAll(keepingCapacity: true)
        }
        for (i, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "\t") where field < 2:
                if field == 0 { line.fieldEnds.0 = i } else { line.fieldEnds.1 = i }
                field += 1
            case _ where field < 2:
                continue   // the text (or index) and the name
            case UInt8(ascii: "\n"):
                end()
                id = 0; inWord = false; field = 0; line = Line(start: i + 1); kind = nameWord
            case UInt8(ascii: " "), UInt8(ascii: ","), UInt8(ascii: ";"):
                if inWord { words.append(byte == UInt8(ascii: " ") ? id | kind : id | kind | phraseEnd) }
                if byte == UInt8(ascii: ";") { kind = 0 }
                id = 0; inWord = false
            default:
                id = id * 36 + UInt32(base36(byte)); inWord = true
            }
        }
        if field == 2 { end() }   // a last line without its newline
    }

    private static func base36(_ byte: UInt8) -> Int {
        byte >= UInt8(ascii: "a") ? Int(byte - UInt8(ascii: "a")) + 10 : Int(byte - UInt8(ascii: "0"))
    }

    /// Finds the characters all of whose query words begin some word of theirs, best first, as
    /// many as `results` holds: first those with a phrase that is exactly the query (`euro` for
    /// €), one of whose names has the query's words before the others, then those whose words
    /// include every query word whole, a phrase's last among them (the
    /// thing it names: `half` for "vulgar fraction one half", not "upper half circle"), then the
    /// others with every word whole, then the rest; within each, the table's order; and the
    /// characters of other scripts and combining marks after those of the common blocks. Allocates nothing.
    ///
    /// Each query word marks, in a bit set of the characters, those having a word it begins (the
    /// postings of its range of word ids) and those having it whole; the sets are intersected, the
    /// whole matches ranked one by one, and the rest taken in order until `results` is full.
    public func search(_ query: CharacterSearchQuery, into results: inout CharacterSearchResults) {
        results.removeAll()
        let wordCount = query.wordCount
        guard wordCount > 0 else { return }
        results.prepare(characters: count)
        for j in 0..<wordCount {
            let r = query.withWord(j, range(of:))
            results.ranges[j] = r
            results.scratch.clear()
            for id in Int(r.low)..<Int(r.high) { mark(word: id, in: &results.scratch) }
            if j == 0 { results.matches.copy(results.scratch) } else { results.matches.intersect(results.scratch) }
            results.scratch.clear()
            if r.exact != .max { mark(word: Int(r.exact), in: &results.scratch) }
            if j == 0 { results.whole.copy(results.scratch) } else { results.whole.intersect(results.scratch) }
        }
        results.matched = results.matches.count
        let ranges = results.ranges
        ranges.withUnsafeBufferPointer { ranges in
            let ranges = UnsafeBufferPointer(rebasing: ranges[0..<wordCount])
            var c = results.whole.next(from: 0)
            while let found = c {
                let tier = tier(of: found, ranges)
                results.offer((tier <= 1 || found < commonCount ? tier : tier + 3) << 24 | UInt32(found))
                c = results.whole.next(from: found + 1)
            }
        }
        // The rest are prefixes only: in the table's order, as many as fit.
        results.matches.subtract(results.whole)
        var taken = 0, c = results.matches.next(from: 0)
        while let found = c, taken < results.capacity {
            results.offer((found < commonCount ? 4 : 7) << 24 | UInt32(found))
            taken += 1
            c = results.matches.next(from: found + 1)
        }
    }

    struct Ranges {
        var low: UInt32 = 0, high: UInt32 = 0, exact: UInt32 = .max
    }

    private func mark(word id: Int, in set: inout CharacterBitSet) {
        for k in Int(postingsStart[id])..<Int(postingsStart[id + 1]) { set.insert(Int(postings[k])) }
    }

    /// How well character `c`, which has every query word whole, matches: 0, a phrase of its is
    /// the query and one of its names has every query word (`herz` for ❤️, "rotes Herz", before
    /// 💏, whose German keywords have it); 1, a phrase is the query; 2, a query word ends one
    /// of its phrases; 3, none of these.
    private func tier(of c: Int, _ ranges: UnsafeBufferPointer<Ranges>) -> UInt32 {
        let all: UInt8 = UInt8(truncatingIfNeeded: (1 << ranges.count) - 1)
        var head = false, exact = false, named = false, phraseWhole: UInt8 = 0, phraseLength = 0, phraseExact = true
        for k in Int(wordsStart[c])..<Int(wordsStart[c + 1]) {
            let raw = characterWords[k], id = raw & Self.idMask, isLast = raw & Self.phraseEnd != 0
            phraseLength += 1
            var wordIsWhole = false
            for j in 0..<ranges.count where id == ranges[j].exact {
                phraseWhole |= 1 << j; wordIsWhole = true
                if isLast { head = true }
            }
            if !wordIsWhole { phraseExact = false }
            if isLast {
                if phraseExact && phraseWhole == all && phraseLength == ranges.count { exact = true }
                if phraseWhole == all && raw & Self.nameWord != 0 { named = true }
                phraseWhole = 0; phraseLength = 0; phraseExact = true
            }
        }
        return exact ? (named ? 0 : 1) : head ? 2 : 3
    }

    /// The sum of every character's word ids: the benchmark's reference, the walk a search makes
    /// without its matching.
    public func wordSum() -> Int {
        var sum: UInt32 = 0
        for id in characterWords { sum &+= id }
        return Int(sum)
    }

    /// The ids of the words that begin with `prefix`, and the id of `prefix` itself if it is one.
    private func range(of prefix: UnsafeBufferPointer<UInt8>) -> Ranges {
        let count = wordStarts.count - 1
        // First word not below the prefix; first word whose start is above it.
        let low = partition(count) { compare(word: $0, prefix) >= 0 }
        let high = partition(count) { compare(word: $0, prefix) > 0 }
        var r = Ranges(low: UInt32(low), high: UInt32(high))
        if low < high, wordStarts[low + 1] - wordStarts[low] == Int32(prefix.count) { r.exact = UInt32(low) }
        return r
    }

    /// The first index in 0..<count where `isAbove` holds (it holds for all after it).
    private func partition(_ count: Int, _ isAbove: (Int) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if isAbove(mid) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// Word `id`'s first `prefix.count` bytes against the prefix: -1, 0 or 1.
    private func compare(word id: Int, _ prefix: UnsafeBufferPointer<UInt8>) -> Int {
        let start = Int(wordStarts[id]), length = Int(wordStarts[id + 1]) - start
        for i in 0..<prefix.count {
            guard i < length else { return -1 }
            let a = wordBytes[start + i], b = prefix[i]
            if a != b { return a < b ? -1 : 1 }
        }
        return 0
    }
}

/// The best matches of a search, kept in the caller's storage so that a search allocates nothing:
/// ranks (`tier << 24 | character`), ascending, at most `capacity`.
public struct CharacterSearchResults {
    public let capacity: Int
    private var ranks: [UInt32]
    public private(set) var count = 0
    /// How many characters matched in all, the ones beyond `capacity` too.
    public internal(set) var matched = 0
    /// The search's working storage: the query words' word id ranges, and sets of characters.
    var ranges = [CharacterSearchIndex.Ranges](repeating: .init(), count: CharacterSearchQuery.maxWords)
    var matches = CharacterBitSet(), whole = CharacterBitSet(), scratch = CharacterBitSet()

    public init(capacity: Int) {
        self.capacity = capacity
        ranks = [UInt32](repeating: 0, count: capacity)
    }

    /// The character at position `i` (0: the best).
    public subscript(i: Int) -> Int { Int(ranks[i] & 0xFF_FFFF) }

    public mutating func removeAll() { count = 0; matched = 0 }

    /// Sizes the sets for a table of `characters` (once: later searches find them sized).
    mutating func prepare(characters: Int) {
        guard matches.capacity < characters else { return }
        matches = CharacterBitSet(capacity: characters)
        whole = CharacterBitSet(capacity: characters)
        scratch = CharacterBitSet(capacity: characters)
    }

    mutating func offer(_ rank: UInt32) {
        if count == capacity {
            guard capacity > 0, rank < ranks[count - 1] else { return }
            count -= 1
        }
        var i = count
        while i > 0 && ranks[i - 1] > rank { ranks[i] = ranks[i - 1]; i -= 1 }
        ranks[i] = rank
        count += 1
    }
}

/// A set of the table's characters, one bit each.
struct CharacterBitSet {
    private var bits: [UInt64]

    init(capacity: Int = 0) { bits = [UInt64](repeating: 0, count: (capacity + 63) / 64) }

    var capacity: Int { bits.count * 64 }
    var count: Int { bits.reduce(0) { $0 + $1.nonzeroBitCount } }

    mutating func clear() { for i in bits.indices { bits[i] = 0 } }
    mutating func insert(_ c: Int) { bits[c >> 6] |= 1 << UInt64(c & 63) }
    mutating func copy(_ other: Self) { for i in bits.indices { bits[i] = other.bits[i] } }
    mutating func intersect(_ other: Self) { for i in bits.indices { bits[i] &= other.bits[i] } }
    mutating func subtract(_ other: Self) { for i in bits.indices { bits[i] &= ~other.bits[i] } }

    /// The first member at or after `c`.
    func next(from c: Int) -> Int? {
        var i = c >> 6
        guard i < bits.count else { return nil }
        var word = bits[i] & (~0 << UInt64(c & 63))
        while word == 0 {
            i += 1
            guard i < bits.count else { return nil }
            word = bits[i]
        }
        return i << 6 | word.trailingZeroBitCount
    }
}
