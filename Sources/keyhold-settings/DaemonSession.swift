import KeyholdLinux

/// What the daemon says of Keyhold in this user's own session (`{"cmd":"session"}`, which any
/// user may ask of their own session), and the requests the window sends it. Each request is
/// a connection of its own, answered within two seconds (the daemon answers at once, or is not
/// there).
struct DaemonSession {
    let controlPath: String

    /// The daemon's answer, or why there is none.
    func info() -> Result<ControlSessionInfo, DaemonError> {
        request(.session).map { reply in
            ControlSessionInfo(inFront: reply["in_front"]?.boolValue ?? false, paused: reply["paused"]?.boolValue ?? false,
                               unicodeMethod: reply["unicode_method"]?.stringValue, application: reply["application"]?.stringValue,
                               settings: reply["settings"]?.stringValue)
        }
    }

    /// This user's companions read their settings file again and hand it to the daemon; how many.
    @discardableResult
    func reloadSettings() -> Int {
        (try? request(.reloadSettings).get())?["companions"]?.intValue ?? 0
    }

    /// Pauses or resumes Keyhold for everybody (root and group keyhold only).
    func pause(_ paused: Bool) -> Result<Void, DaemonError> {
        request(paused ? .pause : .resume).map { _ in () }
    }

    struct DaemonError: Error, CustomStringConvertible {
        let description: String
    }

    private func request(_ request: ControlRequest) -> Result<JSONValue, DaemonError> {
        do {
            let reply = try ControlClient(path: controlPath).request(request, timeout: 2000)
            guard reply["ok"]?.boolValue == true else {
                return .failure(DaemonError(description: reply["error"]?.stringValue ?? "the daemon refused"))
            }
            return .success(reply)
        } catch {
            return .failure(DaemonError(description: error.description))
        }
    }
}
