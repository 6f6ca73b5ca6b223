extension Character {
    /// The byte of a character that is one ASCII byte, else nil. Unlike `asciiValue`, "\r\n" has
    /// none (it is two bytes). Tables indexed by it find ASCII characters without hashing them,
    /// which costs hundreds of instructions a lookup.
    @inlinable @inline(__always) public var asciiByte: Int? {
        let utf8 = self.utf8
        return utf8.count == 1 ? Int(utf8[utf8.startIndex]) : nil
    }
}

extension String {
    /// The byte of a string that is one ASCII character, else nil (see `Character.asciiByte`).
    @inlinable @inline(__always) public var asciiByte: Int? {
        let utf8 = self.utf8
        return utf8.count == 1 ? Int(utf8[utf8.startIndex]) : nil
    }
}
