/// A standard service that says whether it behaves exactly as the standard class does: true for
/// the class itself, false for a subclass (an override may do more). Each decides it once, when
/// it is made, so the engine's fast paths (running a standard gesture itself and deciding its
/// feedback after the key is written; remembering which keys have callouts) test no type per key.
public protocol StandardBehavior: AnyObject {
    var hasStandardBehavior: Bool { get }
}
