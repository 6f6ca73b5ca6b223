import CSettingsWindow
import KeyholdKit
import KeyholdLinux

/// The settings window: every change is one key of the user's own settings file, written as
/// `keyhold set` writes it (comments kept, checked over the system's configuration first) and
/// handed to the daemon at once by the user's companion (`reload-settings`). A change the
/// system's configuration does not allow is refused with its reason, and the control goes back.
final class SettingsWindow {
    private let widgets: Widgets
    private var editor: PersonalSettingsEditor
    private let daemon: DaemonSession
    /// The application ids this window itself has (its focus is not "the application in front").
    private static let ownIds: Set<String> = ["keyhold-settings", "org.keyhold.Settings"]

    private var sessionRow: UnsafeMutableRawPointer!, settingsRow: UnsafeMutableRawPointer!, pauseRow: UnsafeMutableRawPointer!
    private var languagesGroup: UnsafeMutableRawPointer!, candidatesRow: UnsafeMutableRawPointer!
    private var appsGroup: UnsafeMutableRawPointer!, inFrontRow: UnsafeMutableRawPointer!
    private var languageRows: [String: UnsafeMutableRawPointer] = [:]
    private var appRows: [String: UnsafeMutableRawPointer] = [:]
    private var letter: Character = "e"
    /// The last application in front that was not this window (offered as one click).
    private var applicationInFront: String?
    private var holdTimeWrite: Timer?, refresh: Timer?

    init(app: UnsafeMutableRawPointer, editor: PersonalSettingsEditor, daemon: DaemonSession, systemError: String?) {
        widgets = Widgets(app: app, title: "Keyhold")
        self.editor = editor
        self.daemon = daemon
        build(systemError: systemError)
        refreshSession()
        // What the daemon says of the session changes as the user works elsewhere: asked again
        // every two seconds (one small request; the window has nothing to do otherwise).
        refresh = Timer(milliseconds: 2000) { [unowned self] in refreshSession(); return true }
    }

    func present() { khw_present(widgets.window) }

    private var configuration: KeyholdConfiguration { editor.configuration }

    // MARK: - The rows

    private func build(systemError: String?) {
        let status = widgets.group("Keyhold", "Accents and symbols from any keyboard, in every program.")
        sessionRow = widgets.label(status, "In this session", nil)
        settingsRow = widgets.label(status, "Settings in force",
                                    systemError.map { "The system's configuration has an error: \($0)" } ?? "Yours (\(editor.file)), over the system's")
        pauseRow = widgets.toggle(status, "Pause Keyhold", "Every key passes through unchanged, for everybody (members of group keyhold)",
                                  on: false) { [unowned self] paused in pause(paused) }
        if let error = editor.error { widgets.toast("Your settings file has an error: \(error)") }

        let accents = widgets.group("Accents", "Hold a letter, then press a number to pick one of its accents.")
        settingToggle(accents, "Accents", "Off: held keys repeat as the desktop repeats them", ["callouts", "enabled"],
                      on: configuration.callouts.enabled)
        widgets.entry(accents, "Letter to preview", String(letter)) { [unowned self] text in
            guard let first = text.first else { return }
            letter = first
            showCandidates()
        }
        candidatesRow = widgets.label(accents, "Its candidates", nil)
        settingToggle(accents, "Most picked first", "Your most picked accents come first (else their numbers never move)",
                      ["callouts", "order"], on: configuration.callouts.order == .frequent, values: ("\"frequent\"", "\"locale\""))

        let hold = widgets.group("Hold", "How long a letter is held before its accents open.")
        _ = widgets.spin(hold, "Hold time in milliseconds", nil, range: 200...2000, step: 50,
                         value: Double(configuration.gestures.longPressDelay)) { [unowned self] text in holdTime(text) }
        widgets.entry(hold, "Try it here", "")

        let feedback = widgets.group("Feedback")
        settingToggle(feedback, "Sounds", "A click on each key", ["feedback", "audio"], on: configuration.feedback.isAudioEnabled)
        settingToggle(feedback, "Haptics", "A buzz on keyboards that can", ["feedback", "haptic"],
                      on: configuration.feedback.isHapticEnabled)

        appsGroup = widgets.group("Applications", "Accents off where holding a key should repeat it (a terminal, a game).")
        inFrontRow = widgets.button(appsGroup, "The application in front", nil, label: "No accents there") { [unowned self] in
            guard let application = applicationInFront else { return }
            if set(["apps", application, "callouts"], "false") { showApplications() }
        }
        showApplications()

        // Every language, each with a switch: in use, its candidates come in the order chosen
        languagesGroup = widgets.group("Languages")
        let locales = configuration.callouts.locales
        for id in LocalizedCalloutTable.shared.localeIdentifiers {
            let name = LocalizedCalloutTable.localeNames[id] ?? id
            languageRows[id] = widgets.toggle(languagesGroup, "\(name) (\(id))", nil, on: locales.contains(id)) { [unowned self] on in
                language(id, on: on)
            }
        }
        showLanguages()
    }

    /// A switch for one setting: its two values (true and false unless given); a refused change
    /// puts the switch back.
    @discardableResult
    private func settingToggle(_ group: UnsafeMutableRawPointer, _ title: String, _ subtitle: String?, _ keys: [String], on: Bool,
                               values: (on: String, off: String) = ("true", "false")) -> UnsafeMutableRawPointer {
        var row: UnsafeMutableRawPointer?
        row = widgets.toggle(group, title, subtitle, on: on) { [unowned self] on in
            if !set(keys, on ? values.on : values.off), let row { khw_set_active(row, on ? 0 : 1) }
        }
        return row!
    }

    private func showLanguages() {
        let locales = configuration.callouts.locales
        khw_set_description(languagesGroup, "In use, in this order: "
                            + locales.map { LocalizedCalloutTable.localeNames[$0] ?? $0 }.joined(separator: ", "))
        for (id, row) in languageRows { khw_set_active(row, locales.contains(id) ? 1 : 0) }
        showCandidates()
    }

    private func showCandidates() {
        let provider = StandardCalloutActionProvider(keyboardContext: KeyboardContext(locales: configuration.callouts.locales),
                                                     customCandidates: configuration.callouts.custom)
        let candidates = provider.calloutActions(for: .character(String(letter))).compactMap { action -> String? in
            if case .character(let text) = action { return text } else { return nil }
        }
        khw_set_subtitle(candidatesRow, candidates.isEmpty ? "none" : "\(letter) → " + candidates.joined(separator: " "))
    }

    /// The user's own rules (the system's come after them and are not theirs to change).
    private func showApplications() {
        let rules = configuration.apps.prefix(max(0, configuration.apps.count - editor.system.apps.count))
        for rule in rules where appRows[rule.pattern] == nil {
            appRows[rule.pattern] = settingToggle(appsGroup, "Accents in \(rule.pattern)", nil, ["apps", rule.pattern, "callouts"],
                                                  on: rule.callouts ?? true)
        }
        for rule in rules { if let row = appRows[rule.pattern] { khw_set_active(row, (rule.callouts ?? true) ? 1 : 0) } }
        showApplicationInFront()
    }

    private func showApplicationInFront() {
        khw_set_subtitle(inFrontRow, applicationInFront ?? "Switch to it, then back here (the desktop must say which one it is)")
        khw_set_sensitive(inFrontRow, applicationInFront != nil ? 1 : 0)
    }

    // MARK: - What the user does

    private func language(_ id: String, on: Bool) {
        var locales = configuration.callouts.locales.filter { $0 != id }
        if on { locales.append(id) }
        guard !locales.isEmpty else {
            widgets.toast("Keep at least one language")
            showLanguages()
            return
        }
        set(["callouts", "locales"], "[" + locales.map { TOMLPath.quoted($0) }.joined(separator: ", ") + "]")
        showLanguages()
    }

    /// Written once the number has stayed the same for a moment: a spin button's clicks, or
    /// digits typed one by one, are not each a new setting.
    private func holdTime(_ text: String) {
        holdTimeWrite = nil
        guard let value = Int(text.filter(\.isNumber)), (200...2000).contains(value),
              value != configuration.gestures.longPressDelay else { return }
        holdTimeWrite = Timer(milliseconds: 500) { [unowned self] in
            set(["gestures", "long_press_ms"], String(value))
            return false
        }
    }

    private func pause(_ paused: Bool) {
        if case .failure(let error) = daemon.pause(paused) {
            widgets.toast(error.description)
            khw_set_active(pauseRow, !paused ? 1 : 0)
        }
    }

    /// Writes one setting and has it in force; false (the reason shown) when it was refused.
    @discardableResult
    private func set(_ keys: [String], _ literal: String) -> Bool {
        do {
            try editor.set(keys, to: literal)
        } catch {
            widgets.toast(error.description)
            showLanguages()
            showApplications()
            return false
        }
        daemon.reloadSettings()
        return true
    }

    // MARK: - The session

    private func refreshSession() {
        switch daemon.info() {
        case .failure(let error):
            khw_set_subtitle(sessionRow, error.description)
        case .success(let info):
            khw_set_active(pauseRow, info.paused ? 1 : 0)
            if info.inFront {
                khw_set_subtitle(sessionRow, "Typing through " + (info.unicodeMethod ?? "?") + (info.paused ? "; paused" : ""))
                if let settings = info.settings { khw_set_subtitle(settingsRow, settings) }
                if let application = info.application, !Self.ownIds.contains(application), application != applicationInFront {
                    applicationInFront = application
                    showApplicationInFront()
                }
            } else {
                khw_set_subtitle(sessionRow, "This session is not the one in front of the seat")
            }
        }
    }
}
