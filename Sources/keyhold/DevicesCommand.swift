import ArgumentParser
import KeyholdKit
import KeyholdLinux

struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List input devices and which ones Keyhold grabs.",
        discussion: """
            Lists every /dev/input/event* with its name, vendor:product, phys and whether `keyhold run` \
            would grab it and why: the keyboard heuristic (KEY_A..KEY_Z and KEY_SPACE), the [devices] \
            include or exclude pattern that matched, or Keyhold's own virtual keyboard.
            """)

    @Option(help: "Configuration file (default: /etc/keyhold/config.toml if present, else the built-in default).")
    var config: String?

    func run() throws {
        let configuration = try ConfigurationFile.load(explicit: config)
        let nodes = DevicePolicy.eventNodes()
        if nodes.isEmpty {
            print("no input devices (/dev/input/event* is empty or unreadable)")
            return
        }
        let source = SystemDeviceSource()
        for node in nodes {
            let device: any KeyboardDevice
            do { device = try source.open(node) } catch {
                print("\(node)\n    cannot open: \(error)\n    grab: unknown")
                continue
            }
            var identity = device.identity
            identity.seat = source.seat(node) ?? DevicePolicy.seat
            let decision = DevicePolicy.decide(identity, settings: configuration.devices)
            print("\(node)  \"\(identity.name.terminalSafe)\"")
            print("    id \(identity.idString)  bus \(busName(identity.bustype))  phys \(identity.phys.isEmpty ? "-" : identity.phys.terminalSafe)")
            print("    grab: \(decision.grab ? "yes" : "no") (\(decision.reason.terminalSafe))")
        }
    }

    private func busName(_ bus: UInt16) -> String {
        switch bus {
        case 0x03: return "usb"
        case 0x05: return "bluetooth"
        case 0x06: return "virtual"
        case 0x11: return "i8042"
        case 0x18: return "i2c"
        case 0x19: return "host"
        default: return String(format4: bus)
        }
    }
}

extension String {
    fileprivate init(format4 value: UInt16) {
        let s = String(value, radix: 16)
        self = "0x" + String(repeating: "0", count: 4 - s.count) + s
    }
}
