import FuzzSupport
import KeyholdKit

/// The configuration loader under libFuzzer: bytes as a configuration file, through the loader
/// the daemon uses on start and on every reload. A crash, a trap or a hang here would be typing
/// taken down by a typo. Beyond not crashing, every input checks what each error must carry (a
/// file and a line) and that `validate` and `load` agree.
@main
struct FuzzConfiguration {
    static func main() { runFuzzer(fuzzOne) }

    static let fuzzOne: FuzzInput = { data, size in
        guard let data else { return 0 }
        let bytes = UnsafeBufferPointer(start: data, count: size)
        guard let text = String(validating: bytes, as: UTF8.self) else { return 0 } // the loader refuses these first
        let errors = ConfigurationLoader.validate(text: text, file: "fuzz.toml")
        for error in errors where error.line == nil || error.file != "fuzz.toml" || error.message.isEmpty {
            fatalError("an error without a line: \(error)")
        }
        do {
            _ = try ConfigurationLoader.load(text: text, file: "fuzz.toml")
            if !errors.isEmpty { fatalError("load accepted what validate refused: \(errors[0])") }
        } catch {
            if errors.isEmpty { fatalError("load refused what validate accepted: \(error)") }
        }
        return 0
    }
}
