/// KeyboardKit's text proxy for a physical keyboard: everything the action handler does to the
/// focused program goes through here, as key events on the virtual keyboard.
public protocol KeyboardController: AnyObject {
    /// Types any Unicode text.
    func insertText(_ text: String)
    /// Deletes characters before the cursor.
    func deleteBackward(times: Int)
    /// Moves the cursor by `offset` characters (negative: back).
    func adjustTextPosition(by offset: Int)
    /// Raw transitions of one key, for forwarded keys.
    func keyDown(_ key: KeyCode)
    func keyUp(_ key: KeyCode)
    func keyRepeat(_ key: KeyCode)
    /// Releases every key held on the output (shutdown, unplug, suspend).
    func releaseAllKeys()
}

extension KeyboardController {
    public func deleteBackward() { deleteBackward(times: 1) }
}
