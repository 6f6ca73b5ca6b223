/// Modifiers as the engine sees them. AltGr is kept apart from Alt: AltGr types characters,
/// Alt makes shortcuts.
public struct ModifierKeys: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let shift = ModifierKeys(rawValue: 1)
    public static let control = ModifierKeys(rawValue: 2)
    public static let alt = ModifierKeys(rawValue: 4)
    public static let altGr = ModifierKeys(rawValue: 8)
    public static let meta = ModifierKeys(rawValue: 16)

    /// Modifiers that turn a key into a shortcut: with any of these held every key is forwarded.
    public static let shortcut: ModifierKeys = [.control, .alt, .meta]

    /// Every key that is a modifier.
    public static let allKeys: [KeyCode] = [.leftShift, .rightShift, .leftCtrl, .rightCtrl, .leftAlt, .rightAlt, .leftMeta, .rightMeta]

    /// The modifier a key is, if it is one.
    public init?(key: KeyCode) {
        switch key {
        case .leftShift, .rightShift: self = .shift
        case .leftCtrl, .rightCtrl: self = .control
        case .leftAlt: self = .alt
        case .rightAlt: self = .altGr
        case .leftMeta, .rightMeta: self = .meta
        default: return nil
        }
    }

    /// The keys to press on the virtual keyboard to produce these modifiers.
    public var keys: [KeyCode] {
        var keys: [KeyCode] = []
        if contains(.shift) { keys.append(.leftShift) }
        if contains(.control) { keys.append(.leftCtrl) }
        if contains(.alt) { keys.append(.leftAlt) }
        if contains(.altGr) { keys.append(.rightAlt) }
        if contains(.meta) { keys.append(.leftMeta) }
        return keys
    }
}
