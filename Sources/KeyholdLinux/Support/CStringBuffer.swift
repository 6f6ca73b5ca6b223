extension String {
    /// The text of a C string buffer filled by a C call (up to its first NUL, or all of it); bytes
    /// that are not UTF-8 become U+FFFD.
    public init(cStringBuffer buffer: [CChar]) {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        self.init(decoding: bytes, as: UTF8.self)
    }
}
