/// What the engine may do itself for the services' standard services, found once per wiring: a
/// key then pays two integer compares (`isCurrent`) where it paid three reference reads, an
/// identity check and a cast, each with its retain and release.
struct StandardWiring {
    /// The services' action handler when it has the standard behaviour: the engine runs its
    /// gestures itself and decides their feedback after the key is written.
    var gestureHandler: StandardKeyboardActionHandler? { handler?.takeUnretainedValue() }
    /// Whether that handler asks the services' callout provider, the one the engine's memo of
    /// which keys have callouts asked: a memo answer is then what the handler would say.
    let asksMemosProvider: Bool
    // Unmanaged, so that a key's check and tap take no retain and release: the handler is read
    // only once the services are known to hold it still (`isCurrent`), the controller only once
    // that handler is known to.
    private let handler: Unmanaged<StandardKeyboardActionHandler>?
    private let controller: Unmanaged<StandardKeyboardController>?
    private let servicesRevision: Int
    private let handlerRevision: Int

    init(_ services: KeyboardServices) {
        servicesRevision = services.revision
        let handler = (services.actionHandler as? StandardKeyboardActionHandler).flatMap { $0.hasStandardBehavior ? $0 : nil }
        self.handler = handler.map { .passUnretained($0) }
        handlerRevision = handler?.wiringRevision ?? 0
        asksMemosProvider = handler.map { $0.calloutActionProvider === services.calloutActionProvider } ?? false
        // Exactly a `StandardKeyboardController`: a subclass may type otherwise.
        let controller = (handler?.keyboardController as? StandardKeyboardController)
            .flatMap { type(of: $0) == StandardKeyboardController.self ? $0 : nil }
        self.controller = controller.map { .passUnretained($0) }
    }

    /// Whether nothing was replaced since: neither a service nor the handler's controller or
    /// provider.
    @inline(__always) func isCurrent(for services: KeyboardServices) -> Bool {
        guard servicesRevision == services.revision else { return false }
        return handler?._withUnsafeGuaranteedRef { $0.wiringRevision == handlerRevision } ?? true
    }

    /// `StandardKeyboardController.typeOnOneKey` when the handler types through exactly that
    /// class and asks the memo's provider: false when it did not type.
    @inline(__always) func typeOnOneKey(ascii byte: UInt8, capsLock: Bool) -> Bool {
        guard asksMemosProvider, let controller else { return false }
        return controller._withUnsafeGuaranteedRef { $0.typeOnOneKey(ascii: byte, capsLock: capsLock) }
    }
}
