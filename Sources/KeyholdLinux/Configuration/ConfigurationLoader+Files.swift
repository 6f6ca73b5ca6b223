import KeyholdKit

/// Configuration files: KeyholdKit parses text, KeyholdLinux reads the file.
extension ConfigurationLoader {
    /// Reads and parses a file.
    public static func load(path: String) throws(ConfigurationError) -> KeyholdConfiguration {
        try load(text: readExistingText(path: path), file: path)
    }

    /// Every error in a file, in file order (empty when it is valid), for `keyhold check`; a
    /// file that cannot be read is one error.
    public static func validate(path: String) -> [ConfigurationError] {
        do {
            return validate(text: try readExistingText(path: path), file: path)
        } catch {
            return [error]
        }
    }

    /// Reads and parses a file, or returns nil when it does not exist (so the caller can fall
    /// back to the next location or the default).
    public static func loadIfPresent(path: String) throws(ConfigurationError) -> KeyholdConfiguration? {
        guard let text = try readText(path: path) else { return nil }
        return try load(text: text, file: path)
    }

    /// The file's text; a missing file is an error.
    static func readExistingText(path: String) throws(ConfigurationError) -> String {
        guard let text = try readText(path: path) else {
            throw ConfigurationError(file: path, message: "cannot read the file: \(FileReadError.system(.noSuchFileOrDirectory))")
        }
        return text
    }

    /// The file's text; nil when it does not exist.
    static func readText(path: String) throws(ConfigurationError) -> String? {
        do {
            return try readWholeTextFile(path, limit: maximumFileSize)
        } catch .system(.noSuchFileOrDirectory) {
            return nil
        } catch .tooLarge(let limit) {
            throw ConfigurationError(file: path, message: "the file is larger than \(limit >> 20) MiB")
        } catch .notUTF8 {
            throw ConfigurationError(file: path, message: "the file is not valid UTF-8")
        } catch {
            throw ConfigurationError(file: path, message: "cannot read the file: \(error)")
        }
    }
}
