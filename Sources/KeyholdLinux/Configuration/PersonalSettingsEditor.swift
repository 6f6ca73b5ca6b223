import KeyholdKit

/// A user's own settings file (`~/.config/keyhold/config.toml`) as `keyhold set` and the settings
/// window change it: one key at a time, the way a person would (`TOMLEdit`: comments and the rest
/// kept), each result checked over the system's configuration before it is written, so that the
/// file on disk never holds what the daemon would refuse.
public struct PersonalSettingsEditor {
    public let file: String
    /// The file's text ("" while there is none).
    public private(set) var text: String
    /// The system's configuration the file is laid over.
    public let system: KeyholdConfiguration
    /// The configuration in force while the user's session is in front: the system's with the
    /// file laid over it, or the system's when the file has an error (laid once per text: a
    /// window reads it for every row it shows).
    public private(set) var configuration: KeyholdConfiguration

    /// Why a change was not made.
    public enum Refusal: Error, CustomStringConvertible {
        /// The key is written in a form `TOMLEdit` does not rewrite, or the value is no TOML value.
        case cannotEdit(String)
        /// The result would be refused (each error names the file, line and key); not written.
        case invalid([ConfigurationError])
        case cannotWrite(String)

        public var description: String {
            switch self {
            case .cannotEdit(let why), .cannotWrite(let why): return why
            case .invalid(let errors): return errors.map(\.description).joined(separator: "\n")
            }
        }
    }

    /// Reads `file` (nothing there: an empty text).
    public init(file: String, system: KeyholdConfiguration) throws(FileReadError) {
        self.file = file
        self.system = system
        let text = try PersonalSettings.read(file).text ?? ""
        self.text = text
        configuration = (try? ConfigurationLoader.load(personal: text, file: file, over: system)) ?? system
    }

    /// The first error of the file as it is, if any.
    public var error: ConfigurationError? {
        ConfigurationLoader.validate(personal: text, file: file, over: system).first
    }

    /// The text with `keys` (a table's keys, then the key) set to `literal` (a TOML value as
    /// written), checked over the system's configuration; nothing is written.
    public func edited(_ keys: [String], to literal: String) throws(Refusal) -> String {
        let edited: String
        do { edited = try TOMLEdit.set(keys, to: literal, in: text) } catch { throw .cannotEdit("\(file): \(error)") }
        let errors = ConfigurationLoader.validate(personal: edited, file: file, over: system)
        guard errors.isEmpty else { throw .invalid(errors) }
        return edited
    }

    /// Sets `keys` to `literal` and writes the file (its folder made if need be).
    public mutating func set(_ keys: [String], to literal: String) throws(Refusal) {
        let edited = try edited(keys, to: literal)
        do { try replaceFile(file, with: edited) } catch {
            throw .cannotWrite("\(file): cannot be written: \(error)")
        }
        text = edited
        configuration = (try? ConfigurationLoader.load(personal: edited, file: file, over: system)) ?? system
    }
}
