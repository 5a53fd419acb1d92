import CNavShim

/// The settings WebKitGTK takes from the process rather than from one view:
/// the locale, the colour scheme and reduced motion (measured in the
/// catalogue's WebKitGTK article, "Preferences of the process").
///
/// A view whose configuration sets one holds it from `init` until it
/// closes, and every page of the process follows it at once. Views open at
/// the same time must agree: a view asking for another value than one an
/// open view holds is refused. Once no open view holds a setting, the
/// process's own comes back.
@WebKitActor
enum ProcessPreferences {
    private struct Held<Value: Equatable> {
        var value: Value
        var holders: Int
    }

    private static var locale: Held<String>?
    private static var colorScheme: Held<ColorScheme>?
    private static var reducedMotion: Held<ReducedMotion>?

    /// Applies `configuration`'s process-wide settings and holds them until
    /// `release(_:)` with the same configuration.
    ///
    /// - Throws: `WebViewError.invalidConfiguration` naming the setting and
    ///   both values when an open view holds another value; nothing is held then.
    static func hold(_ configuration: WebViewConfiguration) throws(WebViewError) {
        if let problem = conflict(configuration.locale, locale, "locale", \.debugDescription)
            ?? conflict(configuration.colorScheme, colorScheme, "colour scheme", \.rawValue)
            ?? conflict(configuration.reducedMotion, reducedMotion, "reduced motion", \.rawValue) {
            throw .invalidConfiguration(problem)
        }
        take(&locale, configuration.locale) { nw_set_preferred_language($0) }
        take(&colorScheme, configuration.colorScheme) { nw_set_color_scheme($0 == .dark ? NW_COLOR_SCHEME_DARK : NW_COLOR_SCHEME_LIGHT) }
        take(&reducedMotion, configuration.reducedMotion) { nw_set_reduced_motion($0 == .reduce ? 1 : 0) }
    }

    /// Lets go of what `hold(_:)` held for `configuration`.
    static func release(_ configuration: WebViewConfiguration) {
        give(&locale, configuration.locale) {
            let language = nw_default_language()
            nw_set_preferred_language(language)
            nw_free(language)
        }
        give(&colorScheme, configuration.colorScheme) { nw_set_color_scheme(NW_COLOR_SCHEME_SYSTEM) }
        give(&reducedMotion, configuration.reducedMotion) { nw_set_reduced_motion(-1) }
    }

    private static func conflict<Value>(_ wanted: Value?, _ held: Held<Value>?, _ name: String,
                                        _ text: (Value) -> String) -> String? {
        guard let wanted, let held, held.value != wanted else { return nil }
        return "the \(name) \(text(wanted)) cannot be used while an open view uses \(text(held.value)): "
            + "WebKitGTK keeps one \(name) for the whole process"
    }

    private static func take<Value>(_ held: inout Held<Value>?, _ wanted: Value?, apply: (Value) -> Void) {
        guard let wanted else { return }
        if held == nil { apply(wanted) }
        held = Held(value: wanted, holders: (held?.holders ?? 0) + 1)
    }

    private static func give<Value>(_ held: inout Held<Value>?, _ wanted: Value?, restore: () -> Void) {
        guard wanted != nil, let current = held else { return }
        if current.holders > 1 {
            held?.holders -= 1
        } else {
            held = nil
            restore()
        }
    }
}
