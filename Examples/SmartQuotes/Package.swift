// swift-tools-version:6.0
// A keyboard daemon of your own on Keyhold: a controller subclass that installs a custom action
// handler, and one call that runs it. Build with `swift build`, run with
// `sudo .build/debug/smart-quotes [--config FILE]`; `swift test` types through it in simulation.
import PackageDescription

let package = Package(
    name: "SmartQuotes",
    dependencies: [.package(name: "Keyhold", path: "../..")],
    targets: [
        .target(name: "SmartQuotes", dependencies: [.product(name: "KeyholdKit", package: "Keyhold")]),
        .executableTarget(name: "smart-quotes", dependencies: [
            "SmartQuotes", .product(name: "KeyholdLinux", package: "Keyhold"),
        ]),
        .testTarget(name: "SmartQuotesTests", dependencies: ["SmartQuotes", .product(name: "KeyholdKit", package: "Keyhold")]),
    ]
)
