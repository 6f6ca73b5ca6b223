/// Receives the engine's trace (`KeyholdEngine.addObserver`): the simulator, the control
/// socket's monitor and companion channels, or a library user's own. An engine nobody observes
/// builds no trace entry at all.
public protocol EngineObserver: AnyObject {
    func record(_ entry: TraceEntry)
}

/// An observer held weakly, so observing never keeps anything alive.
struct WeakEngineObserver {
    weak var observer: EngineObserver?
}
