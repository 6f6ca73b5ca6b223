import CSessionKWin
import Glibc
import KeyholdLinux

/// Keyhold as KDE's input method without a step by the user: where KWin's one input-method slot
/// is free, the companion KWin did not start takes it (`KWinInputMethodSlot`), tells KWin as
/// System Settings' Apply does (KWin then starts its own companion, which takes over) and tells
/// the user once, in a notification that says how to undo it. A slot the user gave another input
/// method, or cleared after Keyhold took it, is left alone.
enum KDEInputMethodChoice {
    static func slot() -> KWinInputMethodSlot { KWinInputMethodSlot(environment: environment) }


    /// The input method the user runs outside KWin's slot, or nil.
    private static func chosenOutsideTheSlot(ibusRunning: Bool) -> String? {
        if ibusRunning { return "IBus, which runs in this session" }
        if khs_bus_name_has_owner("org.fcitx.Fcitx5") == 1 { return "fcitx5, which runs in this session" }
        return KWinInputMethodSlot.inputMethodChosenByEnvironment(environment)
    }

    /// What this companion, which KWin did not start, can and cannot do here, after taking the
    /// slot where it is free: for the log and `keyhold status`.
    /// An input method the user runs outside the slot (IBus, `ibusRunning`; fcitx5; one the
    /// session's environment names for programs) is their choice too: the slot is not taken.
    static func takeSlotIfFree(ibusRunning: Bool) -> String {
        let fallback = "characters go through IBus where it runs, else through the daemon's ctrl-shift-u, which Qt programs ignore"
        let select = "select Keyhold in System Settings > Keyboard > Virtual Keyboard"
        let slot = slot()
        // (asked only where the slot is free: the bus call and the environment matter nowhere else)
        if slot.holder() == .nobody, let chosen = chosenOutsideTheSlot(ibusRunning: ibusRunning) {
            return "KWin has no input method and your input method is \(chosen): Keyhold leaves the choice to you, so \(fallback); for Keyhold's picker in every program, \(select)"
        }
        switch slot.takeIfFree() {
        case .took(let entry):
            announce()
            _ = khs_notify("Keyhold is KDE's input method now",
                           "For accents and the accent picker in every program, Keyhold selected itself in System Settings > Keyboard > Virtual Keyboard, where nothing was selected. To undo it, select None there.")
            return "KWin had no input method: Keyhold selected its own (\(entry)) in kwinrc and told KWin, which starts the companion that takes over from this one; until then \(fallback)"
        case .heldByKeyhold(let entry):
            return "KWin has Keyhold selected as its input method (\(entry)) but did not start this keyhold-session; until it starts its own, \(fallback)"
        case .heldByOther(let entry):
            return "KWin's input method is \(entry), which Keyhold leaves as you chose it, so \(fallback); for Keyhold's picker in every program, \(select)"
        case .clearedByUser:
            return "KWin has no input method: Keyhold selected its own once and it was cleared since, which Keyhold respects, so \(fallback); to have it again, \(select) (or run keyhold-session --take-input-method)"
        case .noEntry:
            return "KWin has no input method and Keyhold's desktop entry (\(KWinInputMethodSlot.entryName)) is not installed, so \(fallback)"
        case .failed(let why):
            return "KWin has no input method and Keyhold could not select its own (\(why)), so \(fallback); \(select)"
        }
    }

    /// `keyhold-session --give-back-input-method`: kwinrc as it was before Keyhold took the slot
    /// (the package's removal runs it for every user); KWin told where a session bus is reachable.
    static func giveBack() -> Int32 {
        let slot = slot()
        switch slot.giveBack() {
        case .gaveBack:
            let told = announce()
            print("keyhold-session: KWin's input method given back: \(slot.kwinrc) is as it was before Keyhold selected its own\(told ? "" : " (no session bus: KWin reads it at the next login)")")
            return 0
        case .notTaken:
            print("keyhold-session: Keyhold did not select itself as KWin's input method for this user: nothing to give back")
            return 0
        case .changedByUser:
            print("keyhold-session: KWin's input method was changed since Keyhold selected its own: left as it is")
            return 0
        case .failed(let why):
            print("keyhold-session: could not give KWin's input method back: \(why)")
            return 1
        }
    }

    /// `keyhold-session --take-input-method`: what the companion does by itself at a KDE login,
    /// also after the user cleared it (never from another input method).
    static func take() -> Int32 {
        switch slot().takeIfFree(again: true) {
        case .took(let entry):
            let told = announce()
            print("keyhold-session: Keyhold is KWin's input method (\(entry))\(told ? "" : " from the next login (no session bus)")")
            return 0
        case .heldByKeyhold(let entry):
            print("keyhold-session: Keyhold is KWin's input method already (\(entry))")
            return 0
        case .heldByOther(let entry):
            print("keyhold-session: KWin's input method is \(entry), which you chose: left as it is (System Settings > Keyboard > Virtual Keyboard changes it)")
            return 1
        case .clearedByUser, .noEntry:
            print("keyhold-session: Keyhold's desktop entry (\(KWinInputMethodSlot.entryName)) is not installed")
            return 1
        case .failed(let why):
            print("keyhold-session: could not select Keyhold as KWin's input method: \(why)")
            return 1
        }
    }

    /// KWin reads kwinrc's change (System Settings' announcement).
    @discardableResult
    private static func announce() -> Bool {
        khs_announce_config_change("kwinrc", KWinInputMethodSlot.group, KWinInputMethodSlot.key) == 1
    }
}
