import ArgumentParser
import KeyholdKit

struct ComposeFileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose-file",
        abstract: "Print the XCompose table for the compose Unicode method (save it as ~/.XCompose).")

    @Option(help: "Configuration file whose locales, custom callouts and bindings to cover.") var config: String?

    func run() throws {
        let configuration = try ConfigurationFile.load(explicit: config)
        print(ComposeTable.file(for: CharacterInventory.characters(for: configuration)), terminator: "")
    }
}
