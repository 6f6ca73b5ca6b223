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
    /// Releases every key held on the output but `kept` (a reload hands those to the next engine).
    func releaseAllKeys(except kept: [KeyCode])
    /// Takes keys that are already down on the output as held by this controller (a reload's
    /// new services), so their releases go out.
    func assumeDown(_ keys: [KeyCode])
}

extension KeyboardController {
    public func deleteBackward() { deleteBackward(times: 1) }
    public func releaseAllKeys(except kept: [KeyCode]) { releaseAllKeys() }
    public func assumeDown(_ keys: [KeyCode]) {}
}
