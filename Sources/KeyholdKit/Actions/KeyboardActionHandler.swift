/// Runs gestures on actions, as KeyboardKit's action handler.
public protocol KeyboardActionHandler: AnyObject {
    /// Whether `gesture` on `action` does anything (the engine only schedules long presses and
    /// repeats that do).
    func canHandle(_ gesture: KeyboardGesture, on action: KeyboardAction) -> Bool
    func handle(_ gesture: KeyboardGesture, on action: KeyboardAction)
    /// A key pressed while a callout is open.
    func handle(_ intent: CalloutKeyIntent)
    /// A key pressed while the picker is a search (the standard handler types the choice; one
    /// without does nothing, and the engine closes the search on Esc and on keys it does not use).
    func handle(_ intent: CharacterSearchIntent)
}

extension KeyboardActionHandler {
    public func handle(_ intent: CharacterSearchIntent) {}

    /// Handles a press, as KeyboardKit's `handle(_:)`.
    public func handle(_ action: KeyboardAction) { handle(.press, on: action) }

    /// Takes an autocomplete suggestion: types its text.
    public func handle(_ suggestion: Autocomplete.Suggestion) { handle(.press, on: .text(suggestion.text)) }
}

/// KeyboardKit's other name for the standard action handler.
public typealias StandardActionHandler = StandardKeyboardActionHandler
