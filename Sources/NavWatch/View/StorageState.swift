import Foundation

/// What a view's storage holds that a test wants to start from again: its
/// cookies and the `localStorage` of its origins. The JSON is Playwright's
/// `storageState` file, so a state saved by either can start the other's tests.
///
///     // once, after logging in:
///     try await view.storageState().write(to: stateFile)
///     // in each test:
///     var configuration = WebViewConfiguration.testing
///     configuration.storageState = try StorageState(contentsOf: stateFile)
///     let view = try WebView(configuration: configuration)
public struct StorageState: Sendable, Hashable, Codable {
    /// One origin's `localStorage`.
    public struct Origin: Sendable, Hashable, Codable {
        /// `scheme://host[:port]`, as `location.origin` writes it.
        public var origin: String
        /// Its items, in the order `localStorage` listed them.
        public var localStorage: [Item]

        /// An origin and its items.
        public init(origin: String, localStorage: [Item]) {
            self.origin = origin
            self.localStorage = localStorage
        }
    }

    /// One `localStorage` item.
    public struct Item: Sendable, Hashable, Codable {
        /// The item's key.
        public var name: String
        /// Its value.
        public var value: String

        /// An item of `name` and `value`.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The cookies, HttpOnly ones included.
    public var cookies: [Cookie]
    /// The origins that have `localStorage` items.
    public var origins: [Origin]

    /// A state of these cookies and origins; empty by default.
    public init(cookies: [Cookie] = [], origins: [Origin] = []) {
        self.cookies = cookies
        self.origins = origins
    }

    /// Reads a state file (this type's JSON, or Playwright's).
    ///
    /// - Throws: `WebViewError.invalidConfiguration` naming the file and what is wrong with it.
    public init(contentsOf file: URL) throws(WebViewError) {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw .invalidConfiguration("cannot read the storage state \(file.path): \(error.localizedDescription)")
        }
        do {
            self = try JSONDecoder().decode(StorageState.self, from: data)
        } catch let error as DecodingError {
            let problem = error.failureDescription.split(separator: "\n").joined(separator: " ")
            throw .invalidConfiguration(
                "the storage state \(file.path) is not a storage state's JSON: at \(error.codingPathDescription), \(problem)")
        } catch {
            throw .invalidConfiguration("the storage state \(file.path) is not a storage state's JSON: \(error)")
        }
    }

    /// The state as JSON, its keys sorted.
    public func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    /// Writes the state's JSON to `file`, replacing it at once; the file is
    /// readable by its owner only from the start (it holds session cookies).
    public func write(to file: URL) throws(WebViewError) {
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: json(), attributes: [.posixPermissions: 0o600]) else {
            throw .storageFailed("cannot write the storage state \(file.path): cannot create \(temporary.path)")
        }
        guard rename(temporary.path, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw .storageFailed("cannot write the storage state \(file.path): \(reason)")
        }
    }
}
