/// What a view's pages see through `prefers-reduced-motion`
/// (`WebViewConfiguration.reducedMotion`).
public enum ReducedMotion: String, Sendable, Hashable, CaseIterable, Codable {
    /// `prefers-reduced-motion: reduce`.
    case reduce
    /// `prefers-reduced-motion: no-preference`.
    case noPreference = "no-preference"
}
