import KeyholdKit

/// A subclass of the standard action handler that overrides nothing: the engine treats it as any
/// subclass (asks it every question, runs the closures of `action(for:on:)`), so it must act as
/// the standard handler does.
public final class SubclassedActionHandler: StandardKeyboardActionHandler {}
