/// The colour scheme a view's pages see through `prefers-color-scheme`
/// (`WebViewConfiguration.colorScheme`).
public enum ColorScheme: String, Sendable, Hashable, CaseIterable, Codable {
    /// `prefers-color-scheme: light`.
    case light
    /// `prefers-color-scheme: dark`.
    case dark
}
