/// A key and the level modifiers (Shift, AltGr) that type one character on a layout.
public struct Keystroke: Hashable, Sendable {
    public var key: KeyCode
    public var modifiers: ModifierKeys
    public init(_ key: KeyCode, _ modifiers: ModifierKeys = []) { self.key = key; self.modifiers = modifiers }
}

/// A keyboard layout both ways: which keystroke types a character (for output) and which
/// character a key types (to know what a physical key means). `USLayout` is built in; the Linux
/// side provides an xkbcommon-backed layout for every XKB layout. A layout does not change once
/// made: to change it, install another (the engine remembers per layout which keys have callouts).
public protocol KeyboardLayout: AnyObject {
    /// A short name for logs and traces (`us`, `fr(azerty)`).
    var name: String { get }
    /// The keystroke that types `character`, or nil when the layout cannot type it.
    func keystroke(for character: Character) -> Keystroke?
    /// `keystroke(for:)` of the ASCII character `byte` (below 128), asked on every typed
    /// character: a layout answers it from a table, with no Character to make or hash.
    func keystroke(forASCII byte: UInt8) -> Keystroke?
    /// The character `key` types with these level modifiers, ignoring Caps Lock; nil for keys
    /// that type nothing (modifiers, function keys) or only control characters.
    func character(for key: KeyCode, modifiers: ModifierKeys) -> Character?
    /// The character `key` types with these level modifiers and Caps Lock on or off, as an
    /// application would see it. Layouts know which keys Caps Lock affects (on French AZERTY it
    /// leaves the digit row alone); the default inverts Shift for letter keys only.
    func character(for key: KeyCode, modifiers: ModifierKeys, capsLock: Bool) -> Character?
    /// Which keys are modifiers and locks in this keymap; the default is the evdev standard.
    var modifierMap: ModifierMap { get }
}

extension KeyboardLayout {
    public var modifierMap: ModifierMap { .standard }

    public func keystroke(forASCII byte: UInt8) -> Keystroke? { keystroke(for: Character(Unicode.Scalar(byte))) }

    public func character(for key: KeyCode, modifiers: ModifierKeys, capsLock: Bool) -> Character? {
        guard capsLock else { return character(for: key, modifiers: modifiers) }
        let base = character(for: key, modifiers: modifiers.subtracting(.shift))
        guard let base, base.isCased else { return character(for: key, modifiers: modifiers) }
        return character(for: key, modifiers: modifiers.symmetricDifference(.shift))
    }
}

extension Character {
    /// Whether the character has distinct upper and lower case forms.
    var isCased: Bool { isLowercase || isUppercase }
}
