import KeyholdKit

extension KeyholdDaemon {
    /// SIGHUP or `keyhold reload`: loads the configuration again and, when it changed, builds a
    /// new engine that takes over what the old one held; keys held on keyboards that stay
    /// grabbed stay held. A broken configuration keeps the running one.
    @discardableResult
    func reloadConfiguration() -> ControlReloadResult {
        guard let reloader else { Log.warning("SIGHUP: no configuration file to reload"); return .failed("no configuration file to reload") }
        notifier.notify("RELOADING=1")
        defer { notifier.notify("READY=1") }
        let new: KeyholdConfiguration, source: String
        var newLayout = layout, newNames = layoutNames
        do {
            (new, source) = try reloader()
            let names = XKBNames.resolve(new.output)
            if names != layoutNames { (newLayout, newNames) = try KeyholdDaemon.makeLayout(new.output, builtIn: builtInKeymapDiffers != true) }
        } catch {
            Log.error("reload failed, keeping the running configuration: \(error)")
            return .failed("\(error)")
        }
        if new == hub.systemConfiguration && newNames == layoutNames {
            // Nothing to rebuild: keys held right now stay held.
            Log.info("reloaded configuration from \(source): unchanged")
            configurationSource = source
            return .reloaded(source: source)
        }
        // Keys passed through and held (a Shift) stay held across the reload, and the layer and
        // locale stay; what the old engine itself held is let go.
        let held = engine.handOver()
        hub.systemConfiguration = new   // the system's alone until the personal settings in force are laid again
        configuration = hub.configuration
        layout = newLayout
        layoutNames = newNames
        outputQueue.pacing.paceMicroseconds = new.output.paceMicroseconds
        buildEngine()
        engine.takeOver(held)
        applySession()
        // Device rules may have changed: let go of devices no longer wanted, take new ones.
        devices.apply(new.devices)
        checkBuiltInKeymap()
        Log.info("reloaded configuration from \(source) (layout \(layoutNames.layoutName))")
        configurationSource = source
        return .reloaded(source: source)
    }

    /// The hub laid the personal settings of the user in front over the system's, or took them
    /// off (another user in front, an error in theirs): a new engine takes over what the old one
    /// held, as on a reload. Their devices, output and keyboards are the system's: nothing else
    /// changes.
    func applyPersonalSettings() {
        guard hub.configuration != configuration, engine != nil else { return }
        let held = engine.handOver()
        configuration = hub.configuration
        buildEngine()
        engine.takeOver(held)
    }
}
