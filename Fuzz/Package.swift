// swift-tools-version:6.0
// libFuzzer targets for Keyhold, kept out of the main package so that its normal build never
// links them. Build and run with `scripts/fuzz` (it passes `-sanitize=fuzzer`).
import PackageDescription

let package = Package(
    name: "KeyholdFuzz",
    dependencies: [.package(name: "Keyhold", path: "..")],
    targets: [
        // Starts libFuzzer's driver from the target's own `@main`.
        .target(name: "FuzzSupport"),
        // The configuration loader: any bytes give a configuration or errors, never a crash.
        .executableTarget(
            name: "FuzzConfiguration",
            dependencies: ["FuzzSupport", .product(name: "KeyholdKit", package: "Keyhold")]
        ),
        // The control socket's request parser.
        .executableTarget(
            name: "FuzzControlRequest",
            dependencies: ["FuzzSupport", .product(name: "KeyholdLinux", package: "Keyhold")]
        ),
        // keyhold simulate's script parser, and the scripts run.
        .executableTarget(
            name: "FuzzSimulationScript",
            dependencies: ["FuzzSupport", .product(name: "KeyholdKit", package: "Keyhold")]
        ),
        // The engine: random key sequences, then no key may be held on the output.
        .executableTarget(
            name: "FuzzEngine",
            dependencies: ["FuzzSupport", .product(name: "KeyholdKit", package: "Keyhold")]
        ),
    ]
)
