/// Entry points that every WebKit-using type calls first.
public enum WebKitRuntime {
    /// Throws `WebKitUnavailableError` when the WebKit thread could not get a
    /// display or initialise GTK. Cheap after the first call.
    @WebKitActor
    public static func checkAvailable() throws {
        if let error = WebKitExecutor.shared.startupError {
            throw error
        }
    }
}
