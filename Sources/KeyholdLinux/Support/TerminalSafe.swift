extension String {
    /// The text with its control characters (C0, DEL, C1: a terminal takes ESC and CSI as commands)
    /// written as `\x1b`, `\u{9b}`: for what `keyhold` prints of names others chose (an application
    /// id a companion reported, a USB keyboard's name, a keymap's group name).
    public var terminalSafe: String {
        guard unicodeScalars.contains(where: Self.isControl) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            if Self.isControl(scalar) {
                out += scalar.value < 0x80 ? "\\x" + Self.hex2(scalar.value) : "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ s: Unicode.Scalar) -> Bool { s.value < 0x20 || (0x7F...0x9F).contains(s.value) }
    private static func hex2(_ v: UInt32) -> String { (v < 16 ? "0" : "") + String(v, radix: 16) }
}

extension String {
    /// Without control characters (C0, DEL, C1): text a client sends that `keyhold status` may
    /// print to a terminal, where those would be commands to it.
    var isPrintable: Bool { unicodeScalars.allSatisfy { !Self.isControl($0) } }
}
