/// Every character a configuration can ask the output to type: callout candidates of every base
/// character in every configured locale (lower and upper case), custom candidates, and the text
/// of bindings. The compose table must cover all of them.
public enum CharacterInventory {
    public static func characters(for configuration: KeyholdConfiguration) -> [Character] {
        var result: [Character] = [], seen = Set<Character>()
        func add(_ s: String) { for c in s where seen.insert(c).inserted { result.append(c) } }
        let context = KeyboardContext(locales: configuration.callouts.locales)
        let provider = StandardCalloutActionProvider(keyboardContext: context, customCandidates: configuration.callouts.custom)
        let bases = "abcdefghijklmnopqrstuvwxyz0123456789-/$&.?!'\"%=,;:()[]<>*+_#@^~`|\\"
        for locale in context.locales {
            context.locale = locale
            for base in bases {
                for upper in [false, true] where !upper || base.isLetter {
                    let text = upper ? base.uppercased() : String(base)
                    for case .character(let c) in provider.calloutActions(for: .character(text)) { add(c) }
                }
            }
        }
        for candidates in configuration.callouts.custom.values { candidates.forEach { add($0); add(StandardCalloutActionProvider.uppercased($0)) } }
        for layer in configuration.bindings.layers.values {
            for binding in layer.values {
                for action in binding.actions.values {
                    switch action {
                    case .character(let s), .text(let s), .emoji(let s): add(s)
                    default: break
                    }
                }
            }
        }
        return result
    }
}
