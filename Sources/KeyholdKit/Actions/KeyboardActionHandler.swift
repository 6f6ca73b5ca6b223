/// Runs gestures on actions, as KeyboardKit's action handler.
public protocol KeyboardActionHandler: AnyObject {
    /// Whether `gesture` on `action` does anything (the engine only schedules long presses and
    /// repeats that do).
    func canHandle(_ gesture: KeyboardGesture, on action: KeyboardAction) -> Bool
    func handle(_ gesture: KeyboardGesture, on action: KeyboardAction)
    /// A key pressed while a callout is open.
    func handle(_ intent: CalloutKeyIntent)
}

extension KeyboardActionHandler {
    /// Handles a press, as KeyboardKit's `handle(_:)`.
    public func handle(_ action: KeyboardAction) { handle(.press, on: action) }

    /// Takes an autocomplete suggestion: types its text.
    public func handle(_ suggestion: Autocomplete.Suggestion) { handle(.press, on: .text(suggestion.text)) }
}

/// KeyboardKit's other name for the standard action handler.
public typealias StandardActionHandler = StandardKeyboardActionHandler
