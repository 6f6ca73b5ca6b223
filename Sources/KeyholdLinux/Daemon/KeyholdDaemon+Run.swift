import Glibc
import KeyholdKit

extension KeyholdDaemon {
    /// Runs a daemon of your own in one call: the keyboard driven by `controller` (a
    /// `KeyboardInputViewController` subclass that installs its services in `viewDidLoad()`),
    /// the configuration from `--config FILE` among `arguments`, else where `keyhold run` looks
    /// (`ConfigurationLocation`); SIGHUP reloads it. Returns the exit status: 0
    /// after a clean stop, 1 when the daemon cannot run, 2 for a broken configuration.
    ///
    ///     exit(KeyholdDaemon.run(MyKeyboardViewController.self))
    public static func run(_ controller: KeyboardInputViewController.Type,
                           arguments: [String] = CommandLine.arguments) -> Int32 {
        var path: String?
        if let i = arguments.firstIndex(of: "--config"), i + 1 < arguments.count { path = arguments[i + 1] }
        let daemon: KeyholdDaemon
        do {
            let (configuration, source) = try ConfigurationLocation.load(explicit: path)
            daemon = try KeyholdDaemon(configuration: configuration, reload: { try ConfigurationLocation.load(explicit: path) })
            daemon.configurationSource = source
        } catch let error as ConfigurationError {
            Log.error("\(error)")
            return 2
        } catch let error as DaemonError {
            Log.error("\(error)")
            if case .configuration = error { return 2 }
            return 1
        } catch {
            Log.error("\(error)")
            return 1
        }
        daemon.controllerType = controller
        return daemon.run()
    }
}
