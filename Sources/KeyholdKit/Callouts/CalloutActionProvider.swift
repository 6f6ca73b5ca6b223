/// Gives the callout (accent picker) actions for an action, as KeyboardKit's callout service.
public protocol CalloutActionProvider: AnyObject {
    /// The candidates for `action` in their display order, without the action itself.
    func calloutActions(for action: KeyboardAction) -> [KeyboardAction]
}

extension String {
    /// The characters of the string, each as a string: `"$€£".chars` is `["$", "€", "£"]`, as a
    /// callout provider lists candidates.
    public var chars: [String] { map(String.init) }
}
