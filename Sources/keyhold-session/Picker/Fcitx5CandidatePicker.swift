/// The picker as fcitx5 shows candidates: its own candidate list, numbered and horizontal, at the
/// text caret, the highlighted one's name above it (the addon: `panel`). A click on a candidate
/// comes back as a pick.
final class Fcitx5CandidatePicker: CandidateListPicker {
    private let link: Fcitx5Link

    init(link: Fcitx5Link) { self.link = link }

    override func present(base: String, candidates: [String], selected: Int, auxiliary: String) {
        link.send(["panel", String(selected - 1), auxiliary] + candidates)
    }

    override func dismiss() { link.send(["hide"]) }

    override func takePick() -> Int? { link.takePick() }
}
