/// KeyboardKit's autocomplete namespace. Keyhold offers no suggestions of its own; a custom
/// daemon that has some hands them to the action handler, which types their text.
public enum Autocomplete {
    /// A suggested text: `actionHandler.handle(suggestion)` types it.
    public struct Suggestion: Hashable, Sendable {
        public var text: String
        /// What a suggestion list would show; the text when not given.
        public var title: String
        public init(text: String, title: String? = nil) {
            self.text = text
            self.title = title ?? text
        }
    }
}

/// The spelling one of KeyboardKit's articles prints (`Autocomlete.Suggestion(text:)`), so that
/// sample compiles as printed (and without a warning: the seed samples are built with the tests,
/// whose build must print none). Write `Autocomplete`.
public typealias Autocomlete = Autocomplete
