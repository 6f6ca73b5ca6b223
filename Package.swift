// swift-tools-version:6.0
import Foundation
import PackageDescription

// Release builds of the two programs carry the Swift runtime inside (only the Debian C libraries
// stay shared): the daemon then maps one file instead of eleven Swift and Foundation libraries and
// binds no symbols from them, which measured 150 ms off its cold start in the guest (first key
// through 950 -> 800 ms) and 3 MB off its RSS; the installed binaries need no toolchain.
// ArgumentParser pulls in FoundationEssentials, whose static archive needs its two C helper
// archives named (`swift build --static-swift-stdlib` finds them by compiling every module for
// the static runtime, which a package cannot ask of its dependencies). The runtime's metadata
// needs 41,000 relative relocations at load: linked by the toolchain's lld with packed relative
// relocations (DT_RELR, glibc 2.36 and later) they take 8 KB of the file instead of 1 MB, which
// is no longer mapped at every start (RSS 1.1 MB less; gold, swiftc's default, cannot pack them).
let staticSwiftRuntime: [LinkerSetting] = [
    .unsafeFlags(["-static-stdlib", "-l_FoundationCShims", "-l_FoundationCollections",
                  "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"],
                 .when(configuration: .release)),
]
// The daemon also carries libstdc++ inside (Sources/keyhold/link/libstdc++.so, a linker script
// found before the system's library): in the guest its start reached main 3 ms sooner, and it
// binds 322 symbols at load instead of 1,986. Not the companion: GTK's and IBus's libraries may
// load the shared libstdc++, and one process should not hold two.
let staticLibstdcxx: [LinkerSetting] = [
    .unsafeFlags(["-L\(Context.packageDirectory)/Sources/keyhold/link"], .when(configuration: .release)),
]

// One thread runs the input path (docs/ARCHITECTURE.md), so the runtime's dynamic exclusivity
// checks guard nothing there, and they were 45% of the instructions a forwarded key cost
// (callgrind). Release builds of the two modules a key passes through leave them out; debug
// builds, which the tests run, keep them, so a real overlapping access still fails a test.
let uncheckedExclusivity: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

// The compile flags pkg-config gives for a desktop library a C target of the companion includes
// (GLib's, GTK's, IBus's headers live in folders of their own), less -pthread: SwiftPM's own
// pkg-config support (a system library target) refuses that flag with a warning on every build.
// The targets name the libraries they link.
func pkgConfigCFlags(_ packages: String...) -> [CSetting] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["pkg-config", "--cflags"] + packages
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return [] }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let flags = String(decoding: output, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
    return [.unsafeFlags(flags.filter { $0 != "-pthread" })]
}

let package = Package(
    name: "Keyhold",
    products: [
        .library(name: "KeyholdKit", targets: ["KeyholdKit"]),
        .library(name: "KeyholdLinux", targets: ["KeyholdLinux"]),
        .executable(name: "keyhold", targets: ["keyhold"]),
        .executable(name: "keyhold-session", targets: ["keyhold-session"]),
        .executable(name: "keyhold-settings", targets: ["keyhold-settings"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.4.0"),
    ],
    targets: [
        // The pure engine: no I/O, no Glibc, no Foundation; deterministic given a clock.
        .target(name: "KeyholdKit", swiftSettings: uncheckedExclusivity),
        // C libraries from Debian, found through pkg-config.
        .systemLibrary(name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        .systemLibrary(name: "CXKBCommon", pkgConfig: "xkbcommon", providers: [.apt(["libxkbcommon-dev"])]),
        // alsa-lib, dlopened on the first sound (include/CALSA.h): needs libasound2-dev's headers.
        .target(name: "CALSA", dependencies: ["CLinuxShim"]),
        // sd-login and sd-bus, dlopened on first use (include/CSystemd.h): needs libsystemd-dev's headers.
        .target(name: "CSystemd", dependencies: ["CLinuxShim"]),
        // Linux kernel headers Swift does not import (the VT's console mode), as inline functions.
        .target(name: "CLinuxShim"),
        // Linux adapters: evdev input, uinput output, udev hotplug, xkbcommon layouts, the epoll loop.
        .target(
            name: "KeyholdLinux",
            dependencies: ["KeyholdKit", "CEvdev", "CUdev", "CXKBCommon", "CALSA", "CSystemd", "CLinuxShim",
                           .product(name: "SystemPackage", package: "swift-system")],
            swiftSettings: uncheckedExclusivity
        ),
        .executableTarget(
            name: "keyhold",
            dependencies: [
                "KeyholdKit", "KeyholdLinux",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["link"],
            linkerSettings: staticSwiftRuntime + staticLibstdcxx
        ),
        // The session companion's X11 backend (XTest, XInput 2, xkbcommon-x11), in C: only the companion
        // links a desktop library, never the daemon.
        .target(
            name: "CSessionX11",
            linkerSettings: [.linkedLibrary("X11"), .linkedLibrary("Xtst"), .linkedLibrary("Xi"), .linkedLibrary("X11-xcb"), .linkedLibrary("xcb"),
                             .linkedLibrary("xkbcommon-x11"), .linkedLibrary("xkbcommon")]
        ),
        // Its Wayland backend (zwp_virtual_keyboard_v1, xkbcommon), with the protocol code
        // wayland-scanner generates from protocols/ (scripts/gen-wayland.sh).
        .target(
            name: "CSessionWayland",
            exclude: ["protocols"],
            linkerSettings: [.linkedLibrary("wayland-client"), .linkedLibrary("xkbcommon")]
        ),
        // Its KDE Plasma backend: the input method KWin starts, its picker drawn with Pango on an
        // input panel surface, KDE's keyboard layouts; the protocol code from protocols/ as
        // CSessionWayland's.
        .target(
            name: "CSessionKWin",
            exclude: ["protocols"],
            cSettings: pkgConfigCFlags("pangocairo", "gio-2.0"),
            linkerSettings: [.linkedLibrary("wayland-client"), .linkedLibrary("pangocairo-1.0"), .linkedLibrary("pango-1.0"),
                             .linkedLibrary("cairo"), .linkedLibrary("gio-2.0"), .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0")]
        ),
        // Its picker overlay: GTK 3, gtk-layer-shell and AT-SPI for the caret.
        .target(
            name: "CSessionOverlay",
            cSettings: pkgConfigCFlags("gtk-layer-shell-0", "atspi-2"),
            linkerSettings: [.linkedLibrary("gtk-layer-shell"), .linkedLibrary("gtk-3"), .linkedLibrary("gdk-3"), .linkedLibrary("atspi"), .linkedLibrary("dbus-1"),
                             .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0")]
        ),
        // Its GNOME backend: IBus (also wherever IBus is the input method) and GNOME's input
        // sources; GLib's main context, which the companion runs inside its own poll loop.
        .systemLibrary(name: "CGLib", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .target(
            name: "CSessionIBus",
            cSettings: pkgConfigCFlags("ibus-1.0"),
            linkerSettings: [.linkedLibrary("ibus-1.0"), .linkedLibrary("gio-2.0"), .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0")]
        ),
        // keyhold-session: runs in a user's graphical session, types what the daemon hands it.
        .executableTarget(name: "keyhold-session",
                          dependencies: ["KeyholdKit", "KeyholdLinux", "CSessionX11", "CSessionWayland", "CSessionKWin", "CSessionOverlay", "CSessionIBus",
                                         "CGLib", "CSystemd"],
                          linkerSettings: staticSwiftRuntime),
        // The settings window's widgets: GTK 4 and libadwaita rows, their signals to Swift closures.
        .target(
            name: "CSettingsWindow",
            cSettings: pkgConfigCFlags("libadwaita-1"),
            linkerSettings: [.linkedLibrary("adwaita-1"), .linkedLibrary("gtk-4"), .linkedLibrary("gio-2.0"), .linkedLibrary("gobject-2.0"),
                             .linkedLibrary("glib-2.0")]
        ),
        // keyhold-settings: a user's own settings in a window (their ~/.config/keyhold/config.toml).
        .executableTarget(name: "keyhold-settings", dependencies: ["KeyholdKit", "KeyholdLinux", "CSettingsWindow"],
                          linkerSettings: staticSwiftRuntime),
        // Prints engine throughput; run with `swift run -c release KeyholdBenchmarks`.
        // (Unchecked exclusivity as the daemon's modules: the harness driving the daemon's path
        // added 600 instructions of access checks to each tap callgrind counted.)
        .executableTarget(name: "KeyholdBenchmarks", dependencies: ["KeyholdKit", "KeyholdLinux"],
                          swiftSettings: uncheckedExclusivity),
        // The fakes several test targets use (an output recorder, feedback recorders), written once.
        .target(name: "KeyholdTestSupport", dependencies: ["KeyholdKit"], path: "Tests/KeyholdTestSupport"),
        .testTarget(name: "KeyholdKitTests", dependencies: ["KeyholdKit", "KeyholdTestSupport"]),
        // KeyboardKit's article samples as printed, compiled against KeyholdKit and run.
        .testTarget(name: "SeedSampleTests", dependencies: ["KeyholdKit", "KeyholdTestSupport"]),
        // Linux adapters that run on any host: xkbcommon layouts, ALSA through a file PCM.
        // SleepMonitorTests plays logind on a bus of its own with sd-bus calls the daemon never
        // makes (CSystemd forwards only the daemon's), so the tests link libsystemd itself.
        .testTarget(name: "KeyholdLinuxTests", dependencies: ["KeyholdLinux", "KeyholdKit", "KeyholdTestSupport"],
                    linkerSettings: [.linkedLibrary("systemd")]),
        // keyhold-session's parts that need no display: the Wayland virtual keyboard's keymap, which
        // key events the IBus backend counts.
        .testTarget(name: "KeyholdSessionTests", dependencies: ["CSessionWayland", "CXKBCommon", "CSessionIBus"]),
        // The engine cases of Tests/Fixtures/simulate, each run as `keyhold simulate` runs it, and
        // the README's simulate examples checked against them.
        .testTarget(name: "SimulationFixtureTests", dependencies: ["KeyholdKit", "KeyholdLinux"]),
    ]
)
