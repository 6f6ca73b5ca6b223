/// The gestures a key's timing produces (KeyboardKit's `Keyboard.Gesture`).
public enum KeyboardGesture: String, Hashable, Sendable, CaseIterable {
    case press, release, longPress, repeatPress, doubleTap
    /// A press and its release as one gesture: what a button does when tapped. The engine never
    /// makes it from key timing (a physical key types on press); `handle(.tap, on:)` runs the
    /// action's press and then its release, as a tapped key would.
    case tap

    /// The gestures key timing makes, which bindings and feedback overrides can name.
    public static let configurable: [KeyboardGesture] = [.press, .release, .longPress, .repeatPress, .doubleTap]

    /// The snake_case name used in configuration files.
    public var configName: String {
        switch self {
        case .press: return "press"
        case .release: return "release"
        case .longPress: return "long_press"
        case .repeatPress: return "repeat_press"
        case .doubleTap: return "double_tap"
        case .tap: return "tap"
        }
    }

    public init?(configName: String) {
        guard let g = KeyboardGesture.configurable.first(where: { $0.configName == configName }) else { return nil }
        self = g
    }
}
