/// What one key does per gesture, from `[bindings]` or `[layers.NAME]`.
public struct KeyBinding: Hashable, Sendable {
    public var actions: [KeyboardGesture: KeyboardAction]
    public init(_ actions: [KeyboardGesture: KeyboardAction]) { self.actions = actions }
    public init(press action: KeyboardAction) { self.actions = [.press: action] }
}

/// Bindings per layer; a key missing from the active layer falls through to `.alphabetic`.
public struct KeyBindings: Hashable, Sendable {
    public var layers: [KeyboardType: [KeyCode: KeyBinding]]
    public init(_ layers: [KeyboardType: [KeyCode: KeyBinding]] = [:]) { self.layers = layers }

    public func binding(for key: KeyCode, in layer: KeyboardType) -> KeyBinding? {
        layers[layer]?[key] ?? (layer == .alphabetic ? nil : layers[.alphabetic]?[key])
    }
}
