/// The function libFuzzer calls with each input.
public typealias FuzzInput = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: FuzzInput
) -> CInt

/// Hands the command line to libFuzzer's driver. SwiftPM gives every executable its own `main`,
/// so libFuzzer's is not linked and the target's `@main` starts the driver instead.
public func runFuzzer(_ callback: FuzzInput) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
}

@_silgen_name("exit")
private func exit(_ status: CInt) -> Never
