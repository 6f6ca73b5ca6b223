/// The gestures a key's timing produces (KeyboardKit's `Keyboard.Gesture`).
public enum KeyboardGesture: String, Hashable, Sendable, CaseIterable {
    case press, release, longPress, repeatPress, doubleTap

    /// The snake_case name used in configuration files.
    public var configName: String {
        switch self {
        case .press: return "press"
        case .release: return "release"
        case .longPress: return "long_press"
        case .repeatPress: return "repeat_press"
        case .doubleTap: return "double_tap"
        }
    }

    public init?(configName: String) {
        guard let g = KeyboardGesture.allCases.first(where: { $0.configName == configName }) else { return nil }
        self = g
    }
}
