/// KeyboardKit's base callouts for symbols, shared by every locale (letters, `$` and `"` come from
/// the locale's table in `LocalizedCalloutData`).
enum BaseCallouts {
    static func candidates(for base: Character) -> [String]? {
        let text: String
        switch base {
        case "0": text = "°"
        case "-": text = "–—•"
        case "/": text = "\\"
        case "&": text = "§"
        case ".": text = "…"
        case "?": text = "¿"
        case "!": text = "¡"
        case "'": text = "‘’`"
        case "%": text = "‰"
        case "=": text = "≠≈"
        default: return nil
        }
        return text.map(String.init)
    }
}
