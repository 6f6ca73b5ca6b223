import KeyholdKit

// Subclasses of the standard services and contexts that override nothing, as a KeyboardKit user
// starts one. The engine recognizes the standard classes exactly (`hasStandardBehavior`,
// `StandardWiring`, the callout memos) and takes its own shortcuts for them; a subclass makes it
// ask the services through their open methods instead. Overriding nothing, the two ways must give
// the same keys, traces and feedback (`FastPathEquivalenceTests`).

final class NoOverrideActionHandler: StandardKeyboardActionHandler {}
final class NoOverrideCalloutActionProvider: StandardCalloutActionProvider {}
final class NoOverrideTableCalloutActionProvider: TableCalloutActionProvider {}
final class NoOverrideKeyboardController: StandardKeyboardController {}
final class NoOverrideFeedbackHandler: StandardKeyboardFeedbackHandler {}
final class NoOverrideKeyboardContext: KeyboardContext {}
final class NoOverrideCalloutContext: CalloutContext {}

/// A standard class a run may replace with its no-override subclass.
enum StandardService: String, CaseIterable, Comparable {
    /// `KeyboardContext` and `CalloutContext`: given when the services are made, never replaced.
    case contexts = "contexts"
    case actionHandler = "action handler"
    case calloutActionProvider = "callout provider"
    /// The provider's `TableCalloutActionProvider`s, one per locale.
    case localizedProviders = "locale providers"
    case keyboardController = "keyboard controller"
    case feedbackHandler = "feedback handler"

    static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }

    /// Replaces the standard services of `services` named in `replaced` (but the contexts) with
    /// their no-override subclasses, set up as the standard ones were: the way a controller's
    /// `viewDidLoad()` installs its own. The action handler comes last, so it holds the others.
    static func install(_ replaced: Set<StandardService>, in services: KeyboardServices) {
        if replaced.contains(.keyboardController) {
            let standard = services.keyboardController as! StandardKeyboardController
            services.keyboardController = NoOverrideKeyboardController(planner: standard.planner, output: standard.output,
                                                                       keyboardContext: services.keyboardContext)
        }
        if replaced.contains(.calloutActionProvider) || replaced.contains(.localizedProviders) {
            let standard = services.calloutActionProvider as! StandardCalloutActionProvider
            let locales = replaced.contains(.localizedProviders)
                ? standard.localizedProviders.enumerated().map { place, provider -> LocalizedCalloutActionProvider in
                    let table = provider as! TableCalloutActionProvider
                    // The built-in locales come first, in table order; theirs are parsed once.
                    let builtIn = place < builtInTables.count && builtInTables[place].localeKey == table.localeKey
                    return NoOverrideTableCalloutActionProvider(localeKey: table.localeKey,
                                                                table: builtIn ? builtInTables[place].table : table.table)
                }
                : standard.localizedProviders
            services.calloutActionProvider = replaced.contains(.calloutActionProvider)
                ? NoOverrideCalloutActionProvider(keyboardContext: services.keyboardContext,
                                                  customCandidates: standard.customCandidates, localizedProviders: locales)
                : StandardCalloutActionProvider(keyboardContext: services.keyboardContext,
                                                customCandidates: standard.customCandidates, localizedProviders: locales)
        }
        if replaced.contains(.feedbackHandler) {
            let standard = services.feedbackHandler as! StandardKeyboardFeedbackHandler
            services.feedbackHandler = NoOverrideFeedbackHandler(settings: standard.settings)
        }
        if replaced.contains(.actionHandler) {
            services.actionHandler = NoOverrideActionHandler(
                keyboardController: services.keyboardController, keyboardContext: services.keyboardContext,
                calloutContext: services.calloutContext, calloutActionProvider: services.calloutActionProvider,
                feedbackHandler: services.feedbackHandler)
        }
    }

    /// The built-in locales' tables, parsed once for every run: parsing them all for each run of
    /// each case made the suite seconds slower.
    static let builtInTables: [(localeKey: String, table: [Character: [String]])] =
        LocalizedCalloutTable.shared.localeIdentifiers.map { ($0, LocalizedCalloutTable.shared.table(for: $0) ?? [:]) }
}
