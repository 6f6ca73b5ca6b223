/// The whole configuration, as read from TOML (see `keyhold.toml` for the documented default).
public struct KeyholdConfiguration: Hashable, Sendable {
    public var devices = DeviceSettings()
    public var gestures = GestureSettings()
    public var callouts = CalloutSettings()
    public var output = OutputSettings()
    /// `[bindings]` and `[layers]`; a file's `[bindings]` replaces the standard ones.
    public var bindings = KeyBindings.standard
    public var feedback = KeyboardFeedbackSettings()
    /// `[apps."GLOB"]`, in the file's order: the first that matches the focused application wins.
    public var apps: [ApplicationRule] = []
    /// `[users]`: what each user's own file may change.
    public var users = UserSettings()
    public init() {}

    /// `[users]`: each user's personal file (`~/.config/keyhold/config.toml`, which their
    /// companion hands the daemon) is laid over this configuration while their session is in front.
    public struct UserSettings: Hashable, Sendable {
        /// The sections a personal file may set (`allow`); the others are the system file's alone.
        public var allow = UserSettings.personalSections
        /// What a personal file may ever set: the keyboards taken, the output and these rules are
        /// the machine's.
        public static let personalSections = ["gestures", "callouts", "bindings", "layers", "apps", "feedback"]
        public init() {}
    }

    /// `[devices]`: which keyboards to grab.
    public struct DeviceSettings: Hashable, Sendable {
        /// Empty: every keyboard-like device.
        public var include: [DevicePattern] = []
        public var exclude: [DevicePattern] = []
        public init() {}

        /// Whether a device that looks like a keyboard (or not) is taken.
        public func accepts(name: String, vendor: UInt16, product: UInt16, phys: String, isKeyboard: Bool) -> Bool {
            if exclude.contains(where: { $0.matches(name: name, vendor: vendor, product: product, phys: phys) }) { return false }
            if include.isEmpty { return isKeyboard }
            return include.contains { $0.matches(name: name, vendor: vendor, product: product, phys: phys) }
        }
    }

    /// `[callouts]`.
    public struct CalloutSettings: Hashable, Sendable {
        public var enabled = true
        /// An open callout nobody touches for this long closes, keeping what it shows
        /// (`timeout_ms`; 0: never).
        public var timeoutMilliseconds = 10_000
        /// The first is active at start; `nextLocale` cycles them.
        public var locales = ["en"]
        /// The candidates' order: the locales' (numbers never move) or the user's most picked first.
        public var order = CalloutOrder.locale
        /// Candidates per base character, replacing the locale's.
        public var custom: [Character: [String]] = [:]
        /// Locales defined in the configuration (`[callouts.locale.NAME]`): candidates per base
        /// character, a base locale's already merged in.
        public var customLocales: [String: [Character: [String]]] = [:]

        /// Whether `locale` names a locale defined here or one of the built-in (CLDR) ones.
        public func isKnownLocale(_ locale: String) -> Bool {
            customLocales[locale] != nil || LocalizedCalloutTable.shared.resolveLocale(locale) != nil
        }
        public init() {}
    }

    /// `[output]`.
    public struct OutputSettings: Hashable, Sendable {
        /// XKB layout; nil means /etc/default/keyboard, else `us`.
        public var layout: String?
        public var variant: String?
        public var options: String?
        public var unicodeMethod: UnicodeMethod = .auto
        public var composeKey: KeyCode = .compose
        /// Pause between synthetic key events, in microseconds (some programs drop fast input).
        public var paceMicroseconds = 0
        public init() {}
    }
}
