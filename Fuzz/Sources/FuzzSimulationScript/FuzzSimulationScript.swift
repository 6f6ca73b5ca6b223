import FuzzSupport
import KeyholdKit

/// `keyhold simulate`'s script parser under libFuzzer, then the script run: a script is events or
/// an error naming its step, and a run of any script ends with no key held.
@main
struct FuzzSimulationScript {
    static func main() { runFuzzer(fuzzOne) }

    static let fuzzOne: FuzzInput = { data, size in
        guard let data, size <= 2048 else { return 0 }
        guard let text = String(validating: UnsafeBufferPointer(start: data, count: size), as: UTF8.self) else { return 0 }
        let script: SimulationScript
        do { script = try SimulationScript(text) } catch { return 0 }
        let simulator = Simulator(recordsTrace: false)
        simulator.run(script)
        simulator.engine.releaseAll()
        if !simulator.application.keyState.downKeys.isEmpty {
            fatalError("keys left held: \(simulator.application.keyState.downKeys)")
        }
        return 0
    }
}
