/// Which feedback is on, and per action and gesture overrides of the standard rules.
public struct KeyboardFeedbackSettings: Hashable, Sendable {
    public var isAudioEnabled = true
    public var isHapticEnabled = true
    /// 0...1.
    public var audioVolume = 0.5
    /// An ALSA PCM name.
    public var audioDevice = "default"
    /// A force-feedback device name (glob); empty means detect.
    public var hapticDevice = ""
    public var overrides: [Override] = []

    /// Replaces the standard feedback for one action (or every action when nil) and gesture.
    public struct Override: Hashable, Sendable {
        public var action: KeyboardAction?
        public var gesture: KeyboardGesture
        public var audio: AudioFeedback?
        public var haptic: HapticFeedback?
        public init(action: KeyboardAction?, gesture: KeyboardGesture, audio: AudioFeedback? = nil, haptic: HapticFeedback? = nil) {
            self.action = action; self.gesture = gesture; self.audio = audio; self.haptic = haptic
        }
        func matches(_ gesture: KeyboardGesture, _ action: KeyboardAction) -> Bool {
            self.gesture == gesture && (self.action == nil || self.action == action)
        }
    }

    public init() {}

    /// The override that applies, the most specific (naming the action) first.
    public func override(for gesture: KeyboardGesture, on action: KeyboardAction) -> Override? {
        overrides.first { $0.action != nil && $0.matches(gesture, action) } ?? overrides.first { $0.matches(gesture, action) }
    }
}
