/// The keyboard's current state, as KeyboardKit's `KeyboardContext`: what is held, which locale
/// and which layer are active. The engine keeps it up to date; handlers and providers read it.
open class KeyboardContext {
    /// The active locale identifier (CLDR style: `fr`, `sr-Latn`).
    public var locale: String { didSet { localeRevision &+= 1 } }
    /// The locales `nextLocale` cycles through, the first being the default.
    public var locales: [String] { didSet { localeRevision &+= 1 } }
    /// Changes whenever `locale` or `locales` is set, so what depends on them (the callout
    /// provider's memo, asked on every key) compares one number instead of the strings.
    public private(set) var localeRevision = 0
    public var keyboardType: KeyboardType = .alphabetic
    /// Modifiers physically held on the grabbed keyboards.
    public var heldModifiers: ModifierKeys = []
    /// Caps Lock and Num Lock as the keyboard's LEDs show them (and as the keymap's lock keys
    /// toggle them in between).
    public var isCapsLockOn = false
    public var isNumLockOn = false
    /// Which keys are modifiers and locks in the keymap in use (the services keep it in step
    /// with their layout).
    public var modifierMap: ModifierMap = .standard
    /// The key whose gesture the action handler is running right now (nil between gestures), so
    /// a handler knows which physical key it acts for.
    public var currentKey: KeyCode?

    public init(locales: [String] = ["en"]) {
        self.locales = locales.isEmpty ? ["en"] : locales
        self.locale = self.locales[0]
    }

    /// Letters come out uppercase with Shift or Caps Lock, not both.
    public var isUppercase: Bool { heldModifiers.contains(.shift) != isCapsLockOn }
    /// Ctrl, Alt (not AltGr) or Super held: every key is a shortcut and is forwarded.
    public var isShortcutHeld: Bool { !heldModifiers.isDisjoint(with: .shortcut) }

    /// Whether `key` is a modifier or a lock in the keymap in use.
    public func isModifierOrLock(_ key: KeyCode) -> Bool { modifierMap.isModifierOrLock(key) }

    /// Moves to the next configured locale, wrapping around.
    open func selectNextLocale() {
        let i = locales.firstIndex(of: locale) ?? -1
        locale = locales[(i + 1) % locales.count]
    }
}
