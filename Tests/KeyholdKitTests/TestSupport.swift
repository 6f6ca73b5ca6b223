import KeyholdKit
import XCTest

/// Runs a script on a fresh simulator and returns it (text, trace, application state).
func simulate(_ script: String, _ configuration: KeyholdConfiguration = KeyholdConfiguration(),
              file: StaticString = #filePath, line: UInt = #line) -> Simulator {
    let simulator = Simulator(configuration: configuration)
    do { _ = try simulator.run(script) } catch { XCTFail("bad script: \(error)", file: file, line: line) }
    return simulator
}


/// A configuration built from TOML-free values, for tests that do not exercise the loader.
func configuration(_ edit: (inout KeyholdConfiguration) -> Void) -> KeyholdConfiguration {
    var c = KeyholdConfiguration()
    edit(&c)
    return c
}

/// Puts a standard action handler or a subclass (`make`: its memberwise `init`) in place of the
/// services' one, wired to their controller, contexts, callout provider and feedback handler.
@discardableResult
func installActionHandler<Handler: StandardKeyboardActionHandler>(
    in services: KeyboardServices,
    _ make: (KeyboardController, KeyboardContext, CalloutContext, CalloutActionProvider, KeyboardFeedbackHandler) -> Handler
) -> Handler {
    let handler = make(services.keyboardController, services.keyboardContext, services.calloutContext,
                       services.calloutActionProvider, services.feedbackHandler)
    services.actionHandler = handler
    return handler
}

/// Deterministic random numbers (SplitMix64) so property-test failures replay.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
