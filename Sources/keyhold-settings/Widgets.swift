import CSettingsWindow

/// The window's rows made through CSettingsWindow, with Swift closures for what the user does:
/// each closure is kept here for the window's life (GTK holds only a pointer to it).
final class Widgets {
    /// What a control reports: its text (an entry's, a spin button's) and its state (1/0).
    typealias Changed = (_ text: String, _ state: Bool) -> Void

    private final class Box {
        let changed: Changed
        init(_ changed: @escaping Changed) { self.changed = changed }
    }
    private var boxes: [Box] = []

    private static let report: khw_changed = { context, text, state in
        Unmanaged<Box>.fromOpaque(context!).takeUnretainedValue().changed(text.map { String(cString: $0) } ?? "", state != 0)
    }

    private func context(_ changed: @escaping Changed) -> UnsafeMutableRawPointer {
        let box = Box(changed)
        boxes.append(box)
        return Unmanaged.passUnretained(box).toOpaque()
    }

    let window: UnsafeMutableRawPointer

    init(app: UnsafeMutableRawPointer, title: String) { window = khw_window(app, title) }

    func group(_ title: String, _ description: String? = nil) -> UnsafeMutableRawPointer { khw_group(window, title, description) }
    @discardableResult
    func label(_ group: UnsafeMutableRawPointer, _ title: String, _ subtitle: String?) -> UnsafeMutableRawPointer {
        khw_label(group, title, subtitle)
    }
    @discardableResult
    func toggle(_ group: UnsafeMutableRawPointer, _ title: String, _ subtitle: String?, on: Bool,
                _ changed: @escaping (Bool) -> Void) -> UnsafeMutableRawPointer {
        khw_switch(group, title, subtitle, on ? 1 : 0, Self.report, context { _, state in changed(state) })
    }
    func spin(_ group: UnsafeMutableRawPointer, _ title: String, _ subtitle: String?, range: ClosedRange<Double>, step: Double,
              value: Double, _ changed: @escaping (String) -> Void) -> UnsafeMutableRawPointer {
        khw_spin(group, title, subtitle, range.lowerBound, range.upperBound, step, value, Self.report, context { text, _ in changed(text) })
    }
    @discardableResult
    func entry(_ group: UnsafeMutableRawPointer, _ title: String, _ text: String,
               _ changed: ((String) -> Void)? = nil) -> UnsafeMutableRawPointer {
        guard let changed else { return khw_entry(group, title, text, nil, nil) }
        return khw_entry(group, title, text, Self.report, context { text, _ in changed(text) })
    }
    @discardableResult
    func button(_ group: UnsafeMutableRawPointer, _ title: String, _ subtitle: String?, label: String,
                _ clicked: @escaping () -> Void) -> UnsafeMutableRawPointer {
        khw_button(group, title, subtitle, label, Self.report, context { _, _ in clicked() })
    }
    func toast(_ text: String) { khw_toast(window, text) }
}
