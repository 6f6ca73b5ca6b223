/// What one key does per gesture, from `[bindings]` or `[layers.NAME]`.
public struct KeyBinding: Hashable, Sendable {
    public var actions: [KeyboardGesture: KeyboardAction]
    /// `{ tap = "...", hold = "..." }`: a dual-role key, which replaces the gesture actions.
    public var dualRole: DualRole?

    public init(_ actions: [KeyboardGesture: KeyboardAction]) { self.actions = actions }
    public init(press action: KeyboardAction) { self.actions = [.press: action] }
    public init(tap: KeyboardAction, hold: KeyboardAction) {
        actions = [:]
        dualRole = DualRole(tap: tap, hold: hold)
    }

    /// A key with two jobs, as keyd's `overload`: its hold action is in force from the moment it
    /// goes down (a modifier goes down at once, so Ctrl+click works; a layer is active); released
    /// before the long-press delay with no other key pressed meanwhile, the hold is undone and
    /// the tap action runs instead.
    public struct DualRole: Hashable, Sendable {
        public var tap: KeyboardAction
        public var hold: KeyboardAction
        public init(tap: KeyboardAction, hold: KeyboardAction) { self.tap = tap; self.hold = hold }
    }
}

/// Bindings per layer; a key missing from the active layer falls through to `.alphabetic`.
public struct KeyBindings: Hashable, Sendable {
    public var layers: [KeyboardType: [KeyCode: KeyBinding]]
    public init(_ layers: [KeyboardType: [KeyCode: KeyBinding]] = [:]) { self.layers = layers }

    /// The default configuration's: a double tap of Right Alt (AltGr) opens the search.
    public static let standard = KeyBindings([.alphabetic: [.rightAlt: KeyBinding([.doubleTap: .search])]])

    public func binding(for key: KeyCode, in layer: KeyboardType) -> KeyBinding? {
        layers[layer]?[key] ?? (layer == .alphabetic ? nil : layers[.alphabetic]?[key])
    }
}
