/// Receives the trace; nil on the engine costs nothing.
public protocol EngineObserver: AnyObject {
    func record(_ entry: TraceEntry)
}
