/// Reads Keyhold's TOML configuration (the schema is `config/keyhold.toml`, which is also
/// ``defaultText``) into a ``KeyholdConfiguration``. It does no I/O: KeyholdLinux reads files
/// (`ConfigurationLoader.load(path:)`). Every mistake is a ``ConfigurationError``
/// naming the file, line and key, with the nearest valid spelling when there is one; unknown
/// keys are errors in every table.
public enum ConfigurationLoader {
    /// The system-wide file.
    public static let systemPath = "/etc/keyhold/config.toml"

    /// The embedded default: byte for byte the documented `config/keyhold.toml`.
    public static var defaultText: String { DefaultConfiguration.text }

    /// Parses configuration text; `file` names it in errors. Throws the first error in the text.
    public static func load(text: String, file: String) throws(ConfigurationError) -> KeyholdConfiguration {
        let (configuration, errors) = decode(text: text, file: file)
        if let first = errors.first { throw first }
        return configuration
    }

    /// Every error in the text, in file order (empty when it is valid), for `keyhold check`.
    /// A syntax error stops parsing, so it comes alone.
    public static func validate(text: String, file: String) -> [ConfigurationError] {
        decode(text: text, file: file).errors
    }

    /// A user's personal file laid over `system`: the sections `system.users.allow` lets users
    /// set, key by key (a binding, a gesture time, an application's rule; a list whole), the
    /// rest `system`'s. `file` names it in errors. Throws the first error.
    public static func load(personal text: String, file: String, over system: KeyholdConfiguration) throws(ConfigurationError) -> KeyholdConfiguration {
        let (configuration, errors) = decode(text: text, file: file, over: system)
        if let first = errors.first { throw first }
        return configuration
    }

    /// Every error of a personal file laid over `system`, in file order.
    public static func validate(personal text: String, file: String, over system: KeyholdConfiguration) -> [ConfigurationError] {
        decode(text: text, file: file, over: system).errors
    }

    /// The largest personal file: a companion's line to the daemon, bounded as a keymap is.
    public static let maximumPersonalFileSize = 64 * 1024

    /// The configuration the embedded default gives (equal to `KeyholdConfiguration()`).
    public static var defaultConfiguration: KeyholdConfiguration {
        (try? load(text: defaultText, file: "(embedded default)")) ?? KeyholdConfiguration()
    }

    /// The largest file read: a configuration is a few kilobytes, and this bounds what loading a
    /// wrong file (a log, a disk image) can cost the daemon to about a second and 100 MB.
    public static let maximumFileSize = 1 << 20

    // MARK: - Decoding

    /// `base`: the system's configuration a personal file is laid over (nil: a system file).
    static func decode(text: String, file: String, over base: KeyholdConfiguration? = nil)
        -> (configuration: KeyholdConfiguration, errors: [ConfigurationError]) {
        let document: TOMLDocument
        do {
            document = try TOMLDocument(text: text)
        } catch {
            return (KeyholdConfiguration(), [ConfigurationError(
                file: file, line: error.line, column: error.column, message: "syntax error: \(error.message)")])
        }
        let decoder = TableDecoder(file: file, document: document, base: base)
        let configuration = decoder.configuration(document.root)
        return (configuration, decoder.sortedErrors)
    }

    /// The keys of each table, for unknown-key errors and for suggesting a key in another table.
    static let schema: [(table: String, keys: [String])] = [
        ("devices", ["include", "exclude"]),
        ("gestures", ["long_press_ms", "repeat_delay_ms", "repeat_interval_ms", "double_tap_ms"]),
        ("callouts", ["enabled", "timeout_ms", "locales", "order", "custom", "locale"]),
        ("output", ["layout", "variant", "options", "unicode_method", "compose_key", "pace_us"]),
        ("feedback", ["audio", "haptic", "volume", "audio_device", "haptic_device", "override"]),
        ("feedback.override", ["action", "gesture", "audio", "haptic"]),
        ("apps", ["callouts", "bindings", "layers", "unicode_method"]),
        ("users", ["allow"]),
    ]
    static let topLevelKeys = ["devices", "gestures", "callouts", "output", "bindings", "layers", "feedback", "apps", "users"]
    static func keys(of table: String) -> [String] { schema.first { $0.table == table }?.keys ?? [] }

    /// Milliseconds a gesture setting may take.
    static let millisecondRange = 1...10_000
    /// Microseconds between synthetic events.
    /// Up to 50 ms: the queue paces without sleeping, but a slower pace would make every
    /// accent take seconds to arrive.
    static let paceRange = 0...50_000

    /// Turns a parsed TOML table into a configuration, collecting errors instead of stopping at
    /// the first, so `keyhold check` can show them all.
    final class TableDecoder {
        typealias Path = [TOMLPathComponent]
        let file: String
        let document: TOMLDocument
        private(set) var errors: [ConfigurationError] = []
        /// `keyboardType:NAME` actions seen, checked against the layers once all are known.
        private var layerReferences: [(name: String, path: Path)] = []
        /// For a personal file, the system's configuration it is laid over.
        let base: KeyholdConfiguration?

        init(file: String, document: TOMLDocument, base: KeyholdConfiguration? = nil) {
            self.file = file; self.document = document; self.base = base
        }

        /// Errors in file order (errors without a line first, which only file errors have).
        var sortedErrors: [ConfigurationError] {
            errors.enumerated().sorted {
                let a = ($0.element.line ?? 0, $0.element.column ?? 0, $0.offset)
                let b = ($1.element.line ?? 0, $1.element.column ?? 0, $1.offset)
                return a < b
            }.map(\.element)
        }

        /// Errors kept: a file that is wrong everywhere needs no more, and each costs a spelling
        /// search, which on a huge generated file would make `keyhold check` crawl.
        static let maximumErrors = 100

        func fail(_ path: Path, _ message: @autoclosure () -> String, suggest suggestion: @autoclosure () -> String? = nil) {
            guard errors.count < Self.maximumErrors else { return }
            let position = document.nearestPosition(of: path)
            errors.append(ConfigurationError(
                file: file, line: position?.line, column: position?.column, key: TOMLPath.string(path),
                message: message(), suggestion: suggestion().map { "did you mean '\($0)'?" }))
        }

        // MARK: Tables and values

        /// Reports keys outside `allowed`, suggesting the nearest allowed key, or the same key in
        /// the table where it belongs.
        /// Whether every key is known.
        @discardableResult
        func checkKeys(_ table: TOMLTable, at path: Path, allowed: [String]) -> Bool {
            var known = true
            for key in table.keys where !allowed.contains(key) {
                known = false
                var suggestion = Spelling.nearest(to: key, in: allowed)
                if suggestion == nil {
                    suggestion = ConfigurationLoader.schema.first { $0.keys.contains(key) }.map { "\($0.table).\(key)" }
                }
                fail(path + [.key(key)], "unknown key", suggest: suggestion)
            }
            return known
        }

        func wrongType(_ path: Path, expected: String, found value: TOMLValue) {
            fail(path, "expected \(expected), found \(value.kindDescription)")
        }

        func table(_ parent: TOMLTable, _ key: String, at path: Path, header: Bool = true) -> TOMLTable? {
            guard let value = parent[key] else { return nil }
            guard let table = value.table else {
                wrongType(path + [.key(key)], expected: header ? "a table ([\(TOMLPath.string(path + [.key(key)]))])" : "a table", found: value)
                return nil
            }
            return table
        }

        func string(_ parent: TOMLTable, _ key: String, at path: Path) -> String? {
            guard let value = parent[key] else { return nil }
            guard let s = value.string else { wrongType(path + [.key(key)], expected: "a string", found: value); return nil }
            return s
        }

        func bool(_ parent: TOMLTable, _ key: String, at path: Path) -> Bool? {
            guard let value = parent[key] else { return nil }
            guard let b = value.bool else { wrongType(path + [.key(key)], expected: "true or false", found: value); return nil }
            return b
        }

        func int(_ parent: TOMLTable, _ key: String, at path: Path, in range: ClosedRange<Int>, unit: String) -> Int? {
            guard let value = parent[key] else { return nil }
            guard let i = value.int else { wrongType(path + [.key(key)], expected: "an integer (\(unit))", found: value); return nil }
            guard range.contains(i) else {
                fail(path + [.key(key)], "\(i) is out of range (\(range.lowerBound) to \(range.upperBound) \(unit))")
                return nil
            }
            return i
        }

        func number(_ parent: TOMLTable, _ key: String, at path: Path, in range: ClosedRange<Double>) -> Double? {
            guard let value = parent[key] else { return nil }
            guard let d = value.double ?? value.int.map(Double.init) else {
                wrongType(path + [.key(key)], expected: "a number", found: value); return nil
            }
            guard range.contains(d) else {
                fail(path + [.key(key)], "\(Self.format(d)) is out of range (\(Self.format(range.lowerBound)) to \(Self.format(range.upperBound)))")
                return nil
            }
            return d
        }

        static func format(_ d: Double) -> String {
            d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
        }

        /// An array of strings; wrong elements are reported and skipped.
        func strings(_ parent: TOMLTable, _ key: String, at path: Path) -> [(String, Path)]? {
            guard let value = parent[key] else { return nil }
            let arrayPath = path + [.key(key)]
            guard let array = value.array else { wrongType(arrayPath, expected: "an array of strings", found: value); return nil }
            var result: [(String, Path)] = []
            for (i, element) in array.enumerated() {
                guard let s = element.string else {
                    wrongType(arrayPath + [.index(i)], expected: "a string", found: element); continue
                }
                result.append((s, arrayPath + [.index(i)]))
            }
            return result
        }

        // MARK: The configuration

        func configuration(_ root: TOMLTable) -> KeyholdConfiguration {
            var c = base ?? KeyholdConfiguration()
            checkKeys(root, at: [], allowed: ConfigurationLoader.topLevelKeys)
            if let base { checkPersonalSections(root, allowed: base.users.allow) }
            if let t = table(root, "devices", at: []) { c.devices = devices(t) }
            if let t = table(root, "gestures", at: []) { c.gestures = gestures(t) }
            if let t = table(root, "callouts", at: []) { c.callouts = callouts(t) }
            if let t = table(root, "output", at: []) { c.output = output(t) }
            if let t = table(root, "bindings", at: []) {
                let layer = bindings(t, at: [.key("bindings")])
                if !layer.isEmpty { c.bindings.layers[.alphabetic] = layered(layer, over: base?.bindings.layers[.alphabetic]) }
            }
            if let t = table(root, "layers", at: []) {
                for (type, layer) in layers(t) where !layer.isEmpty { c.bindings.layers[type] = layered(layer, over: base?.bindings.layers[type]) }
            }
            if let t = table(root, "feedback", at: []) { c.feedback = feedback(t) }
            if let t = table(root, "apps", at: []) {
                let rules = apps(t)
                // A user's rules first; the system's for other applications after them.
                c.apps = rules + (base?.apps ?? []).filter { rule in !rules.contains { $0.pattern == rule.pattern } }
            }
            if let t = table(root, "users", at: []) { c.users = users(t) }
            checkLayerReferences(root)
            return c
        }

        /// A personal file's bindings over the system's: key by key.
        func layered(_ layer: [KeyCode: KeyBinding], over base: [KeyCode: KeyBinding]?) -> [KeyCode: KeyBinding] {
            (base ?? [:]).merging(layer) { $1 }
        }

        /// A personal file sets only what users may: never the keyboards, the output or these
        /// rules, and only the sections the system file's `[users] allow` names.
        func checkPersonalSections(_ root: TOMLTable, allowed: [String]) {
            for key in root.keys where ConfigurationLoader.topLevelKeys.contains(key) {
                if !KeyholdConfiguration.UserSettings.personalSections.contains(key) {
                    fail([.key(key)], "[\(key)] is the machine's: it is set in the system file (\(ConfigurationLoader.systemPath)), not a user's")
                } else if !allowed.contains(key) {
                    fail([.key(key)], "[\(key)] is not yours to change here: the system file's [users] allow leaves it out")
                }
            }
        }

        func users(_ t: TOMLTable) -> KeyholdConfiguration.UserSettings {
            let path: Path = [.key("users")]
            checkKeys(t, at: path, allowed: ConfigurationLoader.keys(of: "users"))
            var u = KeyholdConfiguration.UserSettings()
            if let list = strings(t, "allow", at: path) {
                let sections = KeyholdConfiguration.UserSettings.personalSections
                u.allow = []
                for (section, p) in list {
                    guard sections.contains(section) else {
                        fail(p, "'\(section)' is no section a user may set (\(sections.joined(separator: ", ")))",
                             suggest: Spelling.nearest(to: section, in: sections))
                        continue
                    }
                    if !u.allow.contains(section) { u.allow.append(section) }
                }
            }
            return u
        }

        func devices(_ t: TOMLTable) -> KeyholdConfiguration.DeviceSettings {
            let path: Path = [.key("devices")]
            checkKeys(t, at: path, allowed: ConfigurationLoader.keys(of: "devices"))
            var d = KeyholdConfiguration.DeviceSettings()
            if let list = strings(t, "include", at: path) { d.include = list.compactMap { devicePattern($0.0, at: $0.1) } }
            if let list = strings(t, "exclude", at: path) { d.exclude = list.compactMap { devicePattern($0.0, at: $0.1) } }
            return d
        }

        func devicePattern(_ text: String, at path: Path) -> DevicePattern? {
            if text.isEmpty { fail(path, "empty device pattern"); return nil }
            if text.hasPrefix("phys:") {
                if text.count == 5 { fail(path, "'phys:' needs a glob of the physical path after it"); return nil }
                return DevicePattern(text)
            }
            let pattern = DevicePattern(text)
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            let looksLikeID = parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
            if looksLikeID, case .name = pattern {
                // `46d:c52b`: pad to four hex digits when that makes it valid.
                var suggestion: String?
                if parts.allSatisfy({ $0.count <= 4 && UInt16($0, radix: 16) != nil }) {
                    suggestion = parts.map { String(repeating: "0", count: 4 - $0.count) + $0.lowercased() }.joined(separator: ":")
                }
                fail(path, "bad device id '\(text)': vendor:product needs four hex digits each, as '046d:c52b'", suggest: suggestion)
                return nil
            }
            return pattern
        }

        func gestures(_ t: TOMLTable) -> GestureSettings {
            let path: Path = [.key("gestures")]
            checkKeys(t, at: path, allowed: ConfigurationLoader.keys(of: "gestures"))
            var g = base?.gestures ?? GestureSettings()
            let range = ConfigurationLoader.millisecondRange
            if let v = int(t, "long_press_ms", at: path, in: range, unit: "ms") { g.longPressDelay = v }
            if let v = int(t, "repeat_delay_ms", at: path, in: range, unit: "ms") { g.repeatDelay = v }
            if let v = int(t, "repeat_interval_ms", at: path, in: range, unit: "ms") { g.repeatInterval = v }
            if let v = int(t, "double_tap_ms", at: path, in: range, unit: "ms") { g.doubleTapInterval = v }
            return g
        }

        func callouts(_ t: TOMLTable) -> KeyholdConfiguration.CalloutSettings {
            let path: Path = [.key("callouts")]
            checkKeys(t, at: path, allowed: ConfigurationLoader.keys(of: "callouts"))
            var c = base?.callouts ?? KeyholdConfiguration.CalloutSettings()
            if let v = bool(t, "enabled", at: path) { c.enabled = v }
            if let v = int(t, "timeout_ms", at: path, in: 0...600_000, unit: "ms") { c.timeoutMilliseconds = v }
            // Locales of the user's own come first: `locales` may name them.
            if let defined = table(t, "locale", at: path) {
                let definedPath = path + [.key("locale")]
                for name in defined.keys {
                    guard let locale = table(defined, name, at: definedPath) else { continue }
                    c.customLocales[name] = customLocale(locale, at: definedPath + [.key(name)])   // (a user's replaces the system's)
                }
            }
            if let list = strings(t, "locales", at: path) {
                var locales: [String] = []
                var listed: Set<String> = []
                let known = LocalizedCalloutTable.shared
                for (locale, p) in list {
                    if locale.isEmpty { fail(p, "empty locale"); continue }
                    guard c.isKnownLocale(locale) else {
                        fail(p, "unknown callout locale '\(locale)' (define it under [callouts.locale.\(locale)])",
                             suggest: Spelling.nearest(to: locale, in: known.localeIdentifiers + c.customLocales.keys.sorted()))
                        continue
                    }
                    if !listed.insert(locale).inserted { fail(p, "locale '\(locale)' is listed twice"); continue }
                    locales.append(locale)
                }
                if list.isEmpty { fail(path + [.key("locales")], "needs at least one locale (the first is active)") }
                if !locales.isEmpty { c.locales = locales }
            }
            if let v = string(t, "order", at: path) {
                if let order = CalloutOrder(rawValue: v) {
                    c.order = order
                } else {
                    let names = CalloutOrder.allCases.map(\.rawValue)
                    fail(path + [.key("order")], "unknown callout order '\(v)' (one of \(names.joined(separator: ", ")))",
                         suggest: Spelling.nearest(to: v, in: names))
                }
            }
            if let custom = table(t, "custom", at: path) {
                c.custom = (base?.callouts.custom ?? [:]).merging(candidateTable(custom, at: path + [.key("custom")])) { $1 }
            }
            return c
        }

        /// `[callouts.locale.NAME]`: `base = "LOCALE"` (optional) and candidates per character,
        /// which replace the base locale's for that character.
        func customLocale(_ t: TOMLTable, at path: Path) -> [Character: [String]] {
            var table: [Character: [String]] = [:]
            if let base = string(t, "base", at: path) {
                let known = LocalizedCalloutTable.shared
                if let id = known.resolveLocale(base), let baseTable = known.table(for: id) {
                    table = baseTable
                } else {
                    fail(path + [.key("base")], "unknown callout locale '\(base)'",
                         suggest: Spelling.nearest(to: base, in: known.localeIdentifiers))
                }
            }
            for (base, candidates) in candidateTable(t, at: path, skipping: ["base"]) { table[base] = candidates }
            return table
        }

        /// Candidates per base character: `e = ["é", "è"]`; the key is one lower-case character.
        func candidateTable(_ t: TOMLTable, at path: Path, skipping skipped: [String] = []) -> [Character: [String]] {
            var result: [Character: [String]] = [:]
            for key in t.keys where !skipped.contains(key) {
                let p = path + [.key(key)]
                guard key.count == 1, let base = key.first else {
                    fail(p, "a callout key is one character, not \(key.count)",
                         suggest: skipped.isEmpty ? nil : Spelling.nearest(to: key, in: skipped))
                    continue
                }
                if base.isUppercase, base.lowercased().count == 1 {
                    fail(p, "callouts are set on the lower-case letter; upper case follows", suggest: base.lowercased()); continue
                }
                guard let list = strings(t, key, at: path) else { continue }
                var candidates: [String] = []
                for (candidate, cp) in list {
                    if candidate.isEmpty { fail(cp, "empty callout candidate"); continue }
                    candidates.append(candidate)
                }
                result[base] = candidates
            }
            return result
        }

        func output(_ t: TOMLTable) -> KeyholdConfiguration.OutputSettings {
            let path: Path = [.key("output")]
            checkKeys(t, at: path, allowed: ConfigurationLoader.keys(of: "output"))
            var o = KeyholdConfiguration.OutputSettings()
            if let v = string(t, "layout", at: path) { o.layout = v.isEmpty ? nil : v }
            if let v = string(t, "variant", at: path) { o.variant = v.isEmpty ? nil : v }
            if let v = string(t, "options", at: path) { o.options = v.isEmpty ? nil : v }
            if let v = string(t, "unicode_method", at: path), let method = unicodeMethod(v, at: path + [.key("unicode_method")]) {
                o.unicodeMethod = method
            }
            if let v = string(t, "compose_key", at: path), let key = keyCode(v, at: path + [.key("compose_key")]) {
                o.composeKey = key
            }
            if let v = int(t, "pace_us", at: path, in: ConfigurationLoader.paceRange, unit: "µs") { o.paceMicroseconds = v }
            return o
        }

        func unicodeMethod(_ name: String, at path: Path) -> UnicodeMethod? {
            if let method = UnicodeMethod(rawValue: name) { return method }
            let names = UnicodeMethod.allCases.map(\.rawValue)
            fail(path, "unknown unicode method '\(name)' (one of \(names.joined(separator: ", ")))",
                 suggest: Spelling.nearest(to: name, in: names))
            return nil
        }

        /// A key name as KeyCode(name:) reads it; reports unknown names with the nearest one.
        func keyCode(_ name: String, at path: Path, message: String? = nil) -> KeyCode? {
            if let key = KeyCode(name: name) { return key }
            fail(path, message ?? "unknown key name '\(name)'", suggest: Self.nearestKeyName(name))
            return nil
        }

        static func nearestKeyName(_ name: String) -> String? {
            var n = name.lowercased()
            if n.hasPrefix("key_") { n.removeFirst(4) }
            return Spelling.nearest(to: n, in: KeyCode.allNames)
        }

        // MARK: Bindings

        /// `[bindings]` or `[layers.NAME]`: key = "action" or key = { gesture = "action", ... }.
        func bindings(_ t: TOMLTable, at path: Path) -> [KeyCode: KeyBinding] {
            var layer: [KeyCode: KeyBinding] = [:]
            var spelled: [KeyCode: String] = [:]
            for name in t.keys {
                let p = path + [.key(name)]
                guard let value = t[name] else { continue }
                guard let key = KeyCode(name: name) else {
                    fail(p, "unknown key name '\(name)'", suggest: Self.nearestKeyName(name)); continue
                }
                if let first = spelled[key] {
                    fail(p, "'\(name)' is the same key as '\(first)', which is already bound"); continue
                }
                spelled[key] = name
                if let s = value.string {
                    if let action = action(s, at: p) { layer[key] = KeyBinding(press: action) }
                } else if let gestures = value.table, gestures["tap"] != nil || gestures["hold"] != nil {
                    if let binding = dualRole(gestures, at: p) { layer[key] = binding }
                } else if let gestures = value.table {
                    var actions: [KeyboardGesture: KeyboardAction] = [:]
                    let names = KeyboardGesture.configurable.map(\.configName)
                    var valid = true
                    for gestureName in gestures.keys {
                        let gp = p + [.key(gestureName)]
                        guard let gesture = KeyboardGesture(configName: gestureName) else {
                            fail(gp, "unknown gesture '\(gestureName)' (one of \(names.joined(separator: ", ")), or tap and hold)",
                                 suggest: Spelling.nearest(to: gestureName, in: names + ["tap", "hold"]))
                            valid = false; continue
                        }
                        guard let text = string(gestures, gestureName, at: p) else { valid = false; continue }
                        guard let action = action(text, at: gp) else { valid = false; continue }
                        actions[gesture] = action
                    }
                    if gestures.isEmpty { fail(p, "binds no gesture (use press, release, long_press, repeat_press or double_tap)") }
                    if valid && !actions.isEmpty { layer[key] = KeyBinding(actions) }
                } else {
                    wrongType(p, expected: "an action string or a table of gestures", found: value)
                }
            }
            return layer
        }

        /// `{ tap = "ACTION", hold = "ACTION" }`: both, and nothing else.
        func dualRole(_ t: TOMLTable, at path: Path) -> KeyBinding? {
            var valid = true
            for key in t.keys where key != "tap" && key != "hold" {
                fail(path + [.key(key)], "a dual-role key takes tap and hold only, not '\(key)'")
                valid = false
            }
            var actions: [KeyboardAction] = []
            for name in ["tap", "hold"] {
                guard t[name] != nil else {
                    fail(path, "a dual-role key needs both tap and hold (missing '\(name)')"); valid = false; continue
                }
                guard let text = string(t, name, at: path), let action = action(text, at: path + [.key(name)]) else { valid = false; continue }
                actions.append(action)
            }
            guard valid, actions.count == 2 else { return nil }
            return KeyBinding(tap: actions[0], hold: actions[1])
        }

        func layers(_ t: TOMLTable, at path: Path = [.key("layers")]) -> [(KeyboardType, [KeyCode: KeyBinding])] {
            var result: [(KeyboardType, [KeyCode: KeyBinding])] = []
            for name in t.keys {
                let p = path + [.key(name)]
                guard let layer = table(t, name, at: path) else { continue }
                if name == KeyboardType.alphabetic.name {
                    fail(p, "the alphabetic layer is [bindings]"); continue
                }
                result.append((KeyboardType(name: name), bindings(layer, at: p)))
            }
            return result
        }

        /// `keyboardType:NAME` must name a standard keyboard type or a layer in `[layers]`.
        func checkLayerReferences(_ root: TOMLTable) {
            let standard = [KeyboardType.alphabetic, .numeric, .symbolic, .emojis].map(\.name)
            // An application's rule may define layers of its own, in force while it is.
            let ruleLayers = (root["apps"]?.table).map { apps in apps.keys.flatMap { apps[$0]?.table?["layers"]?.table?.keys ?? [] } } ?? []
            // A personal file may name the system's layers too.
            let baseLayers = (base?.bindings.layers.keys.map(\.name) ?? [])
                + (base?.apps.flatMap { $0.bindings?.layers.keys.map(\.name) ?? [] } ?? [])
            let defined = (root["layers"]?.table?.keys ?? []) + ruleLayers + baseLayers.sorted()
            let definedSet = Set(defined)
            for (name, path) in layerReferences where !standard.contains(name) && !definedSet.contains(name) {
                fail(path, "no layer '\(name)' (define [layers.\(TOMLPathComponent.key(name))] or use \(standard.joined(separator: ", ")))",
                     suggest: Spelling.nearest(to: name, in: standard + defined).map { "keyboardType:\($0)" })
            }
        }

        // MARK: Applications

        /// `[apps."GLOB"]`: per-application rules, kept in the file's order (the first that
        /// matches wins).
        func apps(_ t: TOMLTable) -> [ApplicationRule] {
            let path: Path = [.key("apps")]
            var rules: [ApplicationRule] = []
            for pattern in t.keys {
                let p = path + [.key(pattern)]
                guard let table = table(t, pattern, at: path) else { continue }
                guard !pattern.isEmpty else { fail(p, "an empty application glob matches no application"); continue }
                checkKeys(table, at: p, allowed: ConfigurationLoader.keys(of: "apps"))
                var rule = ApplicationRule(pattern: pattern)
                if let v = bool(table, "callouts", at: p) { rule.callouts = v }
                if table["bindings"] != nil || table["layers"] != nil {
                    var bindings = KeyBindings()
                    if let b = self.table(table, "bindings", at: p) {
                        let layer = self.bindings(b, at: p + [.key("bindings")])
                        if !layer.isEmpty { bindings.layers[.alphabetic] = layer }
                    }
                    if let l = self.table(table, "layers", at: p) {
                        for (type, layer) in layers(l, at: p + [.key("layers")]) where !layer.isEmpty { bindings.layers[type] = layer }
                    }
                    rule.bindings = bindings
                }
                if let v = string(table, "unicode_method", at: p), let method = unicodeMethod(v, at: p + [.key("unicode_method")]) {
                    rule.unicodeMethod = method
                }
                rules.append(rule)
            }
            return rules
        }

        // MARK: Actions

        static let simpleActionNames = KeyboardAction.simpleNames.keys.sorted()

        /// An action's configuration text; errors suggest the nearest valid action.
        func action(_ text: String, at path: Path) -> KeyboardAction? {
            do {
                let action = try KeyboardAction(configString: text)
                if case .keyboardType(let type) = action { layerReferences.append((type.name, path)) }
                return action
            } catch {
                let value = text.firstIndex(of: ":").map { String(text[text.index(after: $0)...]) } ?? ""
                switch error {
                case .unknownAction:
                    if let colon = text.firstIndex(of: ":") {
                        let kind = String(text[..<colon])
                        fail(path, "unknown action '\(text)'",
                             suggest: Spelling.nearest(to: kind, in: KeyboardAction.valuePrefixes).map { "\($0):\(value)" })
                    } else if KeyboardAction.valuePrefixes.contains(text) {
                        fail(path, "action '\(text)' needs a value, as '\(text):VALUE'")
                    } else {
                        var suggestion = Spelling.nearest(to: text, in: Self.simpleActionNames)
                        if suggestion == nil, KeyCode(name: text) != nil { suggestion = "key:\(text.lowercased())" }
                        if suggestion == nil, text.count == 1 { suggestion = "character:\(text)" }
                        fail(path, "unknown action '\(text)'", suggest: suggestion)
                    }
                case .missingValue(let kind):
                    fail(path, "action '\(kind):' needs a value after the colon")
                case .unknownKey(let name):
                    fail(path, "unknown key name '\(name)' in action '\(text)'",
                         suggest: Self.nearestKeyName(name).map { "key:\($0)" })
                case .notOneCharacter(let v):
                    fail(path, "'character:' takes one character, not \(v.count)", suggest: "text:\(v)")
                case .unknownPrimary(let v):
                    fail(path, "unknown primary key type '\(v)'",
                         suggest: Spelling.nearest(to: v, in: KeyboardAction.PrimaryType.allCases.map(\.rawValue)).map { "primary:\($0)" })
                }
                return nil
            }
        }

        // MARK: Feedback

        func feedback(_ t: TOMLTable) -> KeyboardFeedbackSettings {
            let path: Path = [.key("feedback")]
            checkKeys(t, at: path, allowed: ConfigurationLoader.keys(of: "feedback"))
            var f = base?.feedback ?? KeyboardFeedbackSettings()
            if let v = bool(t, "audio", at: path) { f.isAudioEnabled = v }
            if let v = bool(t, "haptic", at: path) { f.isHapticEnabled = v }
            if let v = number(t, "volume", at: path, in: 0...1) { f.audioVolume = v }
            // The devices the daemon opens are the machine's, as its sound files are.
            for key in ["audio_device", "haptic_device"] where base != nil && t[key] != nil {
                fail(path + [.key(key)], "the daemon's devices are set in the system file (\(ConfigurationLoader.systemPath)), not a user's")
            }
            if base == nil, let v = string(t, "audio_device", at: path) {
                if v.isEmpty { fail(path + [.key("audio_device")], "empty ALSA device name", suggest: "default") } else { f.audioDevice = v }
            }
            if base == nil, let v = string(t, "haptic_device", at: path) { f.hapticDevice = v }
            if let value = t["override"] {
                let p = path + [.key("override")]
                f.overrides = []   // (a user's list replaces the system's)
                if let array = value.array {
                    for (i, element) in array.enumerated() {
                        guard let table = element.table else {
                            wrongType(p + [.index(i)], expected: "a table", found: element); continue
                        }
                        if let o = override(table, at: p + [.index(i)]) { f.overrides.append(o) }
                    }
                } else {
                    wrongType(p, expected: "an array of tables ([[feedback.override]])", found: value)
                }
            }
            return f
        }

        func override(_ t: TOMLTable, at path: Path) -> KeyboardFeedbackSettings.Override? {
            let errorCount = errors.count
            // A misspelt key makes "missing" errors that only repeat it.
            let allKnown = checkKeys(t, at: path, allowed: ConfigurationLoader.keys(of: "feedback.override"))
            var action: KeyboardAction?
            if let s = string(t, "action", at: path) { action = self.action(s, at: path + [.key("action")]) }
            var gesture: KeyboardGesture?
            if let s = string(t, "gesture", at: path) {
                gesture = KeyboardGesture(configName: s)
                if gesture == nil {
                    let names = KeyboardGesture.configurable.map(\.configName)
                    fail(path + [.key("gesture")], "unknown gesture '\(s)' (one of \(names.joined(separator: ", ")))",
                         suggest: Spelling.nearest(to: s, in: names))
                }
            } else if t["gesture"] == nil && allKnown {
                fail(path, "missing key 'gesture' (press, release, long_press, repeat_press or double_tap)")
            }
            var audio: AudioFeedback?
            if let s = string(t, "audio", at: path) {
                audio = AudioFeedback(configString: s)
                if base != nil, case .custom? = audio {
                    fail(path + [.key("audio")], "a user's sounds are input, delete, system or none: the daemon reads no file of a user's")
                    audio = nil
                } else if audio == nil {
                    fail(path + [.key("audio")], "unknown audio feedback '\(s)' (input, delete, system, none or a file path)",
                         suggest: Spelling.nearest(to: s, in: ["input", "delete", "system", "none"]))
                }
            }
            var haptic: HapticFeedback?
            if let s = string(t, "haptic", at: path) {
                haptic = HapticFeedback(configString: s)
                if haptic == nil {
                    fail(path + [.key("haptic")], "unknown haptic feedback '\(s)'",
                         suggest: Spelling.nearest(to: s, in: HapticFeedback.allCases.map(\.configString)))
                }
            }
            if t["audio"] == nil && t["haptic"] == nil && allKnown {
                fail(path, "an override needs 'audio' or 'haptic'")
            }
            guard errors.count == errorCount, let gesture else { return nil }
            return .init(action: action, gesture: gesture, audio: audio, haptic: haptic)
        }
    }
}
