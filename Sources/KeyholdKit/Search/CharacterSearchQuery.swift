/// What the user typed into the picker's search, and its words folded as the table's are
/// (lowercase, without diacritics: `Cœur` is `coeur`). Kept in storage made once, so typing
/// into it allocates nothing for the letters of a Latin layout.
public struct CharacterSearchQuery: Equatable {
    /// At most this many words, of at most `maxBytes` folded bytes in all: more is not taken.
    public static let maxWords = 8, maxBytes = 64

    /// As typed, for the picker to show.
    public private(set) var text = ""
    private var bytes: [UInt8]
    /// Where each word ends in `bytes` (and starts: after the previous word's end).
    private var wordEnds: [Int]
    private var wordStarts: [Int]
    public private(set) var wordCount = 0

    public init() {
        text.reserveCapacity(4 * Self.maxBytes)
        bytes = [UInt8](repeating: 0, count: Self.maxBytes)
        wordStarts = [Int](repeating: 0, count: Self.maxWords)
        wordEnds = [Int](repeating: 0, count: Self.maxWords)
    }

    public init(_ text: String) {
        self.init()
        for character in text { _ = append(character) }
    }

    public var isEmpty: Bool { text.isEmpty }

    /// Adds a typed character: a letter or digit to the word being typed, anything else ends it.
    /// False when the query is full (the character is not taken).
    public mutating func append(_ character: Character) -> Bool {
        guard fold(character) else { return false }
        text.append(character)
        return true
    }

    /// Removes the last character typed, if any.
    public mutating func deleteLast() {
        guard !text.isEmpty else { return }
        text.removeLast()
        let typed = text
        clear()
        for character in typed { _ = append(character) }
    }

    public mutating func clear() {
        text.removeAll(keepingCapacity: true)
        wordCount = 0
        length = 0
        inWord = false
    }

    /// Calls `body` with word `j`'s folded bytes.
    func withWord<R>(_ j: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[wordStarts[j]..<wordEnds[j]])) }
    }

    private var length = 0, inWord = false

    /// Folds `character` onto the words; false, changing nothing, when it does not fit.
    private mutating func fold(_ character: Character) -> Bool {
        if let ascii = character.asciiValue {
            let isUpper = (0x41...0x5a).contains(ascii)
            guard isUpper || (0x61...0x7a).contains(ascii) || (0x30...0x39).contains(ascii) else { inWord = false; return true }
            return add(CollectionOfOne(isUpper ? ascii | 0x20 : ascii))
        } else if let spelled = CharacterSearchFolds.table[character] {
            return add(spelled.utf8)
        } else if character.isLetter || character.isNumber {
            // Another script's letter (Greek, Cyrillic): the table's words are lowercase.
            return add(character.lowercased().utf8)
        } else {
            inWord = false
            return true
        }
    }

    private mutating func add<C: Collection>(_ folded: C) -> Bool where C.Element == UInt8 {
        let newWord = !inWord
        guard length + folded.count <= Self.maxBytes, !(newWord && wordCount == Self.maxWords) else { return false }
        if newWord { wordStarts[wordCount] = length; wordCount += 1; inWord = true }
        for byte in folded { bytes[length] = byte; length += 1 }
        wordEnds[wordCount - 1] = length
        return true
    }

    public static func == (a: Self, b: Self) -> Bool { a.text == b.text }
}

/// The folded spelling of the Latin letters a layout may type (`CharacterSearchData.letterFolds`).
enum CharacterSearchFolds {
    static let table: [Character: Substring] = {
        var table: [Character: Substring] = [:]
        for entry in CharacterSearchData.letterFolds.split(separator: " ") {
            guard let letter = entry.first else { continue }
            table[letter] = entry.dropFirst()
        }
        return table
    }()
}
