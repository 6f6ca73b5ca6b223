/// What is in force for the focused application: the configuration's settings, then the first
/// `[apps."GLOB"]` rule that matches (in the file's order), then what the desktop says of the
/// text field, which no rule overrides: where there is none (a game) every key passes through
/// unchanged, held while held; a password field never opens a picker.
public struct ApplicationSettings: Hashable, Sendable {
    public var callouts: Bool
    public var bindings: KeyBindings
    public var unicodeMethod: UnicodeMethod
    /// No text field has the focus: every key is forwarded as it comes.
    public var forwardsEverything: Bool
    /// The rule in force (`apps."xterm"`), if any.
    public var rule: String?
    /// Why, for `keyhold status`: "rule apps.\"xterm\"", "no text field", "password field", ...
    public var reason: String

    public init(configuration: KeyholdConfiguration, focus: ApplicationFocus) {
        callouts = configuration.callouts.enabled
        bindings = configuration.bindings
        unicodeMethod = configuration.output.unicodeMethod
        forwardsEverything = false
        var reasons: [String] = []
        if let rule = configuration.apps.first(where: { $0.matches(focus) }) {
            self.rule = rule.name
            reasons.append("rule \(rule.name)")
            if let value = rule.callouts { callouts = value }
            if let value = rule.bindings { bindings = value }
            if let value = rule.unicodeMethod { unicodeMethod = value }
        }
        switch focus.textField {
        case .none:
            forwardsEverything = true
            reasons.append("no text field: every key passes through")
        case .password:
            callouts = false
            reasons.append("password field: no callouts")
        case .unknown, .normal, .terminal:
            break
        }
        reason = reasons.isEmpty ? "the configuration" : reasons.joined(separator: "; ")
    }
}
