import KeyholdKit

extension KeyholdDaemon {
    /// On the built-in `us` tables, compiles this system's keymap off the input thread once, and
    /// types with it from then on if it differs (xkb-data other than the one the tables came from).
    func checkBuiltInKeymap() {
        guard builtInKeymapDiffers == nil, keymapCheck == nil, let builtIn = BuiltInKeymap.tables(for: layoutNames) else { return }
        let names = layoutNames
        keymapCheck = KeymapCheck(names: names, builtIn: builtIn, watcher: loop) { [unowned self] outcome in
            keymapCheck = nil
            switch outcome {
            case .same:
                builtInKeymapDiffers = false
                Log.info("this system's keymap for \(names) types as the built-in tables")
            case .differs(let compiled):
                builtInKeymapDiffers = true
                Log.warning("this system's keymap for \(names) types differently from the built-in us tables; typing with the system's")
                guard layoutNames == names else { return }
                layout = compiled
                applySession()
            case .failed(let error):
                Log.warning("\(error); keeping the built-in us tables")
            }
        }
        if keymapCheck == nil { Log.warning("cannot start the keymap check; typing with the built-in us tables") }
    }
}
