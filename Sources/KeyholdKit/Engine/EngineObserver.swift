/// Receives the engine's trace (`KeyholdEngine.addObserver`): the simulator, the control
/// socket's monitor and companion channels, or a library user's own. An engine nobody observes
/// builds no trace entry at all.
public protocol EngineObserver: AnyObject {
    func record(_ entry: TraceEntry)
    /// Whether it wants every key's entries now, not only the callouts' (which every observer
    /// gets). While no observer does, a key builds no entry: the control socket wants them only
    /// while a `keyhold monitor` watches, and publishing each key to it cost more than the
    /// key's own way to the output. Asked at `addObserver` and `observersChanged()`.
    var recordsKeys: Bool { get }
}

extension EngineObserver {
    public var recordsKeys: Bool { true }
}

/// An observer held weakly, so observing never keeps anything alive.
struct WeakEngineObserver {
    weak var observer: EngineObserver?
}
