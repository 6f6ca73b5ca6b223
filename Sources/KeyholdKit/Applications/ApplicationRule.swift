/// `[apps."GLOB"]`: what changes while an application whose id matches the glob has the focus.
/// Unset fields keep the configuration's; set ones replace it (a rule's `bindings` and `layers`
/// replace `[bindings]` and `[layers]` while it is in force).
public struct ApplicationRule: Hashable, Sendable {
    /// A shell glob (`*`, `?`, `[...]`) matched without regard to case against each of the
    /// focused application's ids.
    public var pattern: String
    public var callouts: Bool?
    public var bindings: KeyBindings?
    public var unicodeMethod: UnicodeMethod?

    public init(pattern: String, callouts: Bool? = nil, bindings: KeyBindings? = nil, unicodeMethod: UnicodeMethod? = nil) {
        self.pattern = pattern; self.callouts = callouts; self.bindings = bindings; self.unicodeMethod = unicodeMethod
    }

    public func matches(_ focus: ApplicationFocus) -> Bool {
        let pattern = pattern.lowercased()
        return focus.ids.contains { Glob.matches(pattern, $0.lowercased()) }
    }

    /// How `keyhold status` names it: `apps."xterm"`.
    public var name: String { "apps.\"\(pattern)\"" }
}
