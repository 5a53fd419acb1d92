// An example of extending a type of your own with `.rx` members, the way the
// RxSwift documentation extends a class: `PageChecker` has a throwing async
// method; `Reactive where Base: PageChecker` wraps it into an observable that
// never fails, whose elements are results.
import Foundation
import NavWatchRx

/// Loads a page in a fresh view and reports its status, title and link count.
public final class PageChecker: Sendable {
    public struct Report: Sendable, Equatable {
        public let url: URL
        public let status: Int
        public let title: String
        public let links: Int
    }

    public struct CheckFailed: Error, Equatable {
        public let url: URL
        public let kind: NavigationError.Kind
    }

    public init() {}

    /// Throws `CheckFailed` when the page does not load.
    @WebKitActor
    public func check(_ url: URL) async throws -> Report {
        let view = try WebView()
        defer { view.close() }
        switch try await view.rx.pageLoad(url) {
        case .finished(_, let response, let title):
            let links = try await view.rx.evaluate("document.links.length", as: Int.self)
            return Report(url: url, status: response?.statusCode ?? 0, title: title ?? "", links: links)
        case .failed(_, let error, _):
            throw CheckFailed(url: url, kind: error.kind)
        }
    }
}

extension PageChecker: ReactiveCompatible {}

extension Reactive where Base: PageChecker {
    /// Checks each URL in turn. Each element is a report or the failure, as a
    /// value; the observable ends after the last URL. Dropping it, or
    /// cancelling its iteration, stops the checks.
    public func check(_ urls: [URL]) -> Observable<Result<PageChecker.Report, any Error>> {
        let (stream, continuation) = AsyncStream.makeStream(of: Result<PageChecker.Report, any Error>.self)
        let checker = base
        let task = Task {
            for url in urls where !Task.isCancelled {
                do { continuation.yield(.success(try await checker.check(url))) } catch { continuation.yield(.failure(error)) }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return Observable(stream)
    }
}
