/// The keyboard's current state, as KeyboardKit's `KeyboardContext`: what is held, which locale
/// and which layer are active. The engine keeps it up to date; handlers and providers read it.
open class KeyboardContext {
    /// The active locale identifier (CLDR style: `fr`, `sr-Latn`).
    public var locale: String
    /// The locales `nextLocale` cycles through, the first being the default.
    public var locales: [String]
    public var keyboardType: KeyboardType = .alphabetic
    /// Modifiers physically held on the grabbed keyboards.
    public var heldModifiers: ModifierKeys = []
    public var isCapsLockOn = false
    public var isNumLockOn = false

    public init(locales: [String] = ["en"]) {
        self.locales = locales.isEmpty ? ["en"] : locales
        self.locale = self.locales[0]
    }

    /// Letters come out uppercase with Shift or Caps Lock, not both.
    public var isUppercase: Bool { heldModifiers.contains(.shift) != isCapsLockOn }
    /// Ctrl, Alt (not AltGr) or Super held: every key is a shortcut and is forwarded.
    public var isShortcutHeld: Bool { !heldModifiers.isDisjoint(with: .shortcut) }

    /// Moves to the next configured locale, wrapping around.
    open func selectNextLocale() {
        let i = locales.firstIndex(of: locale) ?? -1
        locale = locales[(i + 1) % locales.count]
    }
}
