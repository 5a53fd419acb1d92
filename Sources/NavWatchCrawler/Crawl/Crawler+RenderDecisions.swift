import Foundation
import NavWatchGuard
import NavWatchHTTP

// Deciding what to render (RenderMode.auto): each page read from its HTML
// is reported from it, handed to the render workers, or kept until renders
// of its kind decide (`RenderSampler`).
extension Crawler {
    /// The page `entry` read from its HTML; nil when it was handed to the render workers instead.
    func read(_ entry: FrontierEntry, _ http: HTTPChecker) async -> PageResult? {
        guard let url = URL(string: entry.url) else { return PageResult(report: .skipped(entry, .nonHTTP)) }
        let guardMark = privateAddressGuard?.mark
        let page = await StaticPage.fetch(url, http: http)
        var reason = PageLoadReport.RenderReason.never
        if configuration.render == .auto {
            if let mustRender = page.mustRender {
                await handOver(RenderJob(entry: entry, page: page, reason: mustRender))
                return nil
            }
            guard page.html != nil else { return readResult(entry, page, .notHTML, guardMark: guardMark) }
            switch sampler.decide(page.kind, url: entry.url) {
            case .readHTML(let why):
                reason = why
            case .render(let why):
                await handOver(RenderJob(entry: entry, page: page, reason: why))
                return nil
            case .wait:
                // Decided when a render of its kind is recorded; this worker reads on meanwhile.
                awaitingVerdict[page.kind, default: []].append((entry, page, guardMark))
                return nil
            }
        }
        return readResult(entry, page, reason, guardMark: guardMark)
    }

    /// Decides again the pages of `kind` read while its renders were under
    /// way: those to render are queued, and those read from HTML are returned, for the caller to store.
    func decideAwaiting(_ kind: RenderSampler.Kind) -> [(FrontierEntry, PageResult)] {
        guard let waiting = awaitingVerdict.removeValue(forKey: kind) else { return [] }
        var read: [(FrontierEntry, PageResult)] = []
        for (entry, page, guardMark) in waiting {
            switch sampler.decide(kind, url: entry.url) {
            case .readHTML(let reason): read.append((entry, readResult(entry, page, reason, guardMark: guardMark)))
            case .render(let reason): queue(RenderJob(entry: entry, page: page, reason: reason))
            case .wait: awaitingVerdict[kind, default: []].append((entry, page, guardMark))
            }
        }
        return read
    }

    /// The result of `page` read from its HTML.
    func readResult(_ entry: FrontierEntry, _ page: StaticPage, _ reason: PageLoadReport.RenderReason,
                    guardMark: GuardMark?) -> PageResult {
        var report = PageLoadReport(entry, outcome: .failed)
        report.startedAt = page.startedAt
        report.attempts = entry.attempts + 1
        report.record(page, reason: reason, addedIDs: reason == .sampleAgreed ? sampler.idsAdded(by: page.kind) : [],
                      guardVerdict: privateAddressGuard?.verdict(for: page.document.finalURL, since: guardMark))
        report.fetchedAt = Date()
        var result = PageResult(report: report, retryAfter: page.document.retryAfter)
        result.links = report.wasLoaded ? page.links : []
        result.embedded = report.wasLoaded ? page.embedded : []
        if reason == .sampleAgreed, report.wasLoaded, let learned = sampler.linksAdded(by: page.kind) {
            result.links += learnedLinks(learned, of: page.kind, on: page, of: entry)
        }
        result.aliases = result.report.aliases
        return result
    }

    /// What the kind's scripts add to every page, for `page`: each link's
    /// `href` resolved against the page (another host of the crawl gets its
    /// own), said to come from the renders of the kind's samples; none the
    /// page's own HTML has already. A link written relative to its page
    /// leads where it led from the samples (renders in two directories
    /// agreed on that: `RenderSampler.LearnedLinks.directories`), on the page's host.
    ///
    /// Where the links lead depends only on the page's origin (its base
    /// URL's scheme, host and port), so they are resolved once per kind and origin.
    func learnedLinks(_ learned: RenderSampler.LearnedLinks, of kind: RenderSampler.Kind, on page: StaticPage,
                      of entry: FrontierEntry) -> [PageFacts.Link] {
        let base = page.html?.baseURL ?? page.document.finalURL
        let origin = LearnedOrigin(kind: kind, origin: URLCanonicalizer.origin(of: base) ?? "")
        let resolved: [(link: PageFacts.Link, key: String?)]
        if let known = learnedLinksByOrigin[origin] {
            resolved = known
        } else {
            resolved = learned.links.map { learnedLink in
                var link = learnedLink
                let href = link.href.trimmingCharacters(in: .whitespaces)
                let target = RenderComparison.isLearnable(href: href) ? href : Self.pathFromRoot(of: link.url) ?? href
                link.url = URL(string: target, relativeTo: base)?.absoluteString ?? link.url
                return (link, linkKeys([link], of: entry).first)
            }
            learnedLinksByOrigin[origin] = resolved
        }
        let own = linkKeys(page.links, of: entry)
        return resolved.compactMap { link, key in
            if let key, own.contains(key) { return nil }
            var link = link
            link.learnedFrom = learned.samples
            return link
        }
    }

    /// A kind whose renders taught links, and the origin (`scheme://host:port`) of the pages they are resolved for.
    struct LearnedOrigin: Hashable {
        var kind: RenderSampler.Kind
        var origin: String
    }

    /// `url` without its scheme, host and port: its path from the root, query and fragment.
    static func pathFromRoot(of url: String) -> String? {
        guard var components = URLComponents(string: url) else { return nil }
        (components.scheme, components.user, components.password, components.host, components.port) = (nil, nil, nil, nil, nil)
        return components.string
    }

    /// Queues `job` for the render workers, once the queue has room.
    func handOver(_ job: RenderJob) async {
        while renderQueue.count >= Self.renderQueuedPerView * max(1, configuration.concurrency), !Task.isCancelled {
            await waitForChange(until: clock.now + .seconds(1))
        }
        queue(job)
        wakeAll()
    }

    /// Puts `job` in the render queue: a sample before every job that is
    /// not one, for the pages of its kind wait for it; the others last.
    func queue(_ job: RenderJob) {
        renderingStarted = true
        if job.reason == .sample, let later = renderQueue.firstIndex(where: { $0.reason != .sample }) {
            renderQueue.insert(job, at: later)
        } else {
            renderQueue.append(job)
        }
    }

    /// Tells the sampler what rendering a page of a sampled kind showed, against its HTML.
    func compare(_ job: RenderJob, _ result: PageResult) {
        // Only samples and spot checks speak for their kind (a page rendered for its
        // refresh, its encoding or its kind's disagreement does not).
        guard job.reason == .sample || job.reason == .spotCheck else { return }
        let kind = job.page.kind
        guard let html = job.page.html, result.report.metrics != nil else {
            sampler.abandon(kind, reason: job.reason)  // no page to compare: a failure, a crash
            return
        }
        // The links as the load event left them: what scripts add later, from
        // answers to their own requests, comes in a race with the read, and
        // differs from one render of a page to the next (a navigation tree
        // opened at the page once its index has come).
        let renderedLinks = result.linksAtLoad.map { urls in
            urls.map { PageFacts.Link(url: $0, href: $0, text: "", rel: "", element: "a") }
        } ?? result.links
        let comparison = RenderComparison(
            html: (linkKeys(job.page.links, of: job.entry), Set(html.anchors), html.title),
            rendered: (linkKeys(renderedLinks, of: job.entry), Set(result.report.anchors), result.report.title))
        // The links the render added, each once, as the render had them.
        var added: [PageFacts.Link] = [], keys: Set<String> = []
        for link in result.links {
            guard let key = linkKeys([link], of: job.entry).first, comparison.addedLinks.contains(key),
                  keys.insert(key).inserted else { continue }
            added.append(link)
        }
        sampler.record(kind, reason: job.reason, comparison, url: job.entry.url, added: added)
    }

    /// Where `links` lead, as the link graph has them: `target#fragment`.
    func linkKeys(_ pageLinks: [PageFacts.Link], of entry: FrontierEntry) -> RenderComparison.LinkKeys {
        Set(links.classify(pageLinks, from: entry, shownAt: entry.url).graph.map { $0.target + "#" + ($0.fragment ?? "") })
    }
}
