import KeyholdKit

/// An XKB keymap by rules, model, layout, variant and options, and where it came from.
public struct XKBNames: Hashable, Sendable, CustomStringConvertible {
    public var rules = "evdev"
    public var model = "pc105"
    public var layout = "us"
    public var variant = ""
    public var options = ""
    /// `config`, the defaults file's path, or `built-in`.
    public var source = "built-in"

    public init(layout: String = "us", variant: String = "", options: String = "", model: String = "pc105",
                rules: String = "evdev", source: String = "built-in") {
        self.layout = layout; self.variant = variant; self.options = options; self.model = model
        self.rules = rules; self.source = source
    }

    /// `fr(azerty)`, as logs and traces show it.
    public var layoutName: String { variant.isEmpty ? layout : "\(layout)(\(variant))" }

    public var description: String {
        "\(layoutName)\(options.isEmpty ? "" : " options \(options)") model \(model) (from \(source))"
    }

    /// Where the system keeps its keyboard layout, first found wins: the X11 settings
    /// systemd-localed writes (`localectl set-x11-keymap`), Debian's /etc/default/keyboard, and
    /// the XKB keys of /etc/vconsole.conf.
    public static let systemFiles = ["/etc/X11/xorg.conf.d/00-keyboard.conf", "/etc/default/keyboard", "/etc/vconsole.conf"]

    /// docs/ARCHITECTURE.md, Output: the layout from the configuration, else the first of `files` that
    /// names one (XKB layout, variant, options, model), else `us`. Variant and options from the
    /// configuration override the file's.
    public static func resolve(_ output: KeyholdConfiguration.OutputSettings, files: [String] = systemFiles) -> XKBNames {
        var names = XKBNames()
        if let layout = output.layout, !layout.isEmpty {
            names.layout = layout
            names.source = "config"
        } else {
            for file in files {
                guard let text = readTextFile(file) else { continue }
                let values = file.hasSuffix(".conf") && text.contains("Section") ? parseXorgConf(text) : parseDefaults(text)
                guard let layout = values["XKBLAYOUT"], !layout.isEmpty else { continue }
                names.layout = layout
                names.variant = values["XKBVARIANT"] ?? ""
                names.options = values["XKBOPTIONS"] ?? ""
                if let model = values["XKBMODEL"], !model.isEmpty { names.model = model }
                names.source = file
                break
            }
        }
        if let variant = output.variant { names.variant = variant }
        if let options = output.options { names.options = options }
        return names
    }

    /// The `Option "XkbLayout" "de"` lines of an xorg.conf InputClass (what localed writes), as
    /// XKBLAYOUT, XKBVARIANT, XKBOPTIONS and XKBMODEL.
    public static func parseXorgConf(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for raw in lines(of: text) {
            let line = raw.drop(while: { $0 == " " || $0 == "\t" })
            guard line.hasPrefix("Option") else { continue }
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
            // Option "XkbLayout" "de": the quoted strings are fields 1 and 3.
            guard quoted.count >= 4 else { continue }
            let name = quoted[1].lowercased(), value = String(quoted[3])
            switch name {
            case "xkblayout": values["XKBLAYOUT"] = value
            case "xkbvariant": values["XKBVARIANT"] = value
            case "xkboptions": values["XKBOPTIONS"] = value
            case "xkbmodel": values["XKBMODEL"] = value
            default: break
            }
        }
        return values
    }

    /// Parses a shell-style `KEY="value"` file such as /etc/default/keyboard (comments, quotes,
    /// `export`; no expansion).
    public static func parseDefaults(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for raw in lines(of: text) {
            var line = raw.drop(while: { $0 == " " || $0 == "\t" })
            if line.hasPrefix("#") { continue }
            if line.hasPrefix("export ") { line = line.dropFirst(7) }
            guard let eq = line.firstIndex(of: "=") else { continue }
            let key = line[..<eq].trimmingCharacters(in: " \t")
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { continue }
            var value = Substring(line[line.index(after: eq)...])
            if let quote = value.first, quote == "\"" || quote == "'" {
                value = value.dropFirst()
                if let end = value.firstIndex(of: quote) { value = value[..<end] }
            } else {
                if let hash = value.firstIndex(of: "#") { value = value[..<hash] }
                value = Substring(value.trimmingCharacters(in: " \t"))
            }
            values[key] = String(value)
        }
        return values
    }
}

/// The lines of `text`, split on its UTF-8 bytes (a `\r` before the `\n` dropped): splitting by
/// Characters was two thirds of reading the system's layout, on every start of the daemon.
private func lines(of text: String) -> [Substring] {
    text.utf8.split(separator: UInt8(ascii: "\n")).map { line in
        let text = Substring(line)
        return text.utf8.last == UInt8(ascii: "\r") ? text.dropLast() : text
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
