/// What pressing a key does to the keyboard's state in a keymap.
public enum KeyRole: Hashable, Sendable {
    /// An ordinary key.
    case none
    /// Holds these modifiers while down (Shift, Ctrl, Alt, AltGr, Super).
    case modifier(ModifierKeys)
    /// Toggles Caps Lock.
    case capsLock
    /// Toggles Num Lock.
    case numLock
}

/// Which keys are modifiers and locks in the keymap in use. Options such as `ctrl:nocaps`
/// (Caps Lock is Ctrl), `caps:escape` (Caps Lock is Escape) or `caps:swapescape` (Escape is
/// Caps Lock) move them, so nothing in Keyhold may take them from fixed key codes: the engine
/// asks this map whether a shortcut is held, and the controller which keys to lift around
/// synthetic output.
public struct ModifierMap: Hashable, Sendable {
    private var roles: [KeyRole]
    /// Keys that are modifiers, in key-code order.
    public private(set) var modifierKeys: [KeyCode] = []

    /// A map from each key's role.
    public init(_ role: (KeyCode) -> KeyRole) {
        roles = (0..<KeyCode.count).map { role(KeyCode(UInt16($0))) }
        modifierKeys = roles.indices.compactMap { i in
            if case .modifier = roles[i] { return KeyCode(UInt16(i)) } else { return nil }
        }
    }

    /// The evdev defaults, as a keymap with no options has them (the built-in US layout's).
    public static let standard = ModifierMap { key in
        switch key {
        case .leftShift, .rightShift: return .modifier(.shift)
        case .leftCtrl, .rightCtrl: return .modifier(.control)
        case .leftAlt: return .modifier(.alt)
        case .rightAlt: return .modifier(.altGr)
        case .leftMeta, .rightMeta: return .modifier(.meta)
        case .capsLock: return .capsLock
        case .numLock: return .numLock
        default: return .none
        }
    }

    public func role(of key: KeyCode) -> KeyRole {
        Int(key.rawValue) < roles.count ? roles[Int(key.rawValue)] : .none
    }

    /// The modifiers `key` holds, or nil when it is not a modifier.
    public func modifiers(of key: KeyCode) -> ModifierKeys? {
        if case .modifier(let m) = role(of: key) { return m }
        return nil
    }

    /// The key to hold for `modifier`: its standard key when the keymap keeps it, else the first
    /// key that holds it.
    public func key(for modifier: ModifierKeys) -> KeyCode? {
        if let standard = modifier.keys.first, modifiers(of: standard) == modifier { return standard }
        return modifierKeys.first { modifiers(of: $0) == modifier }
    }

    /// Whether `key` changes state rather than typing: a modifier or a lock.
    public func isModifierOrLock(_ key: KeyCode) -> Bool { role(of: key) != .none }
}
