/// The US QWERTY layout, built in so the engine works without xkbcommon (tests, `simulate`).
public final class USLayout: KeyboardLayout {
    public let name = "us"
    private var charactersByKey: [UInt16: (Character, Character)] = [:]
    private var keystrokes: [Character: Keystroke] = [:]

    public init() {
        // Rows of (first key code, unshifted characters, shifted characters).
        let rows: [(UInt16, String, String)] = [
            (2, "1234567890-=", "!@#$%^&*()_+"),
            (16, "qwertyuiop[]", "QWERTYUIOP{}"),
            (30, "asdfghjkl;'`", "ASDFGHJKL:\"~"),
            (43, "\\zxcvbnm,./", "|ZXCVBNM<>?"),
        ]
        for (first, plain, shifted) in rows {
            for (i, (p, s)) in zip(plain, shifted).enumerated() {
                add(KeyCode(first + UInt16(i)), p, s)
            }
        }
        add(.space, " ", " ")
        add(.tab, "\t", "\t")
        add(.enter, "\n", "\n")
    }

    private func add(_ key: KeyCode, _ plain: Character, _ shifted: Character) {
        charactersByKey[key.rawValue] = (plain, shifted)
        if keystrokes[plain] == nil { keystrokes[plain] = Keystroke(key) }
        if keystrokes[shifted] == nil { keystrokes[shifted] = Keystroke(key, .shift) }
    }

    public func keystroke(for character: Character) -> Keystroke? { keystrokes[character] }

    public func character(for key: KeyCode, modifiers: ModifierKeys) -> Character? {
        guard !modifiers.contains(.altGr), let pair = charactersByKey[key.rawValue] else { return nil }
        return modifiers.contains(.shift) ? pair.1 : pair.0
    }
}
