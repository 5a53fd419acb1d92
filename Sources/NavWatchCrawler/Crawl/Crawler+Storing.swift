import Foundation

// Taking in a page's links and storing its report: links sorted when its
// load ends, offered early to idle workers, stored with the report; reports
// delivered in the order they were stored.
extension Crawler {
    func finish(_ entry: FrontierEntry, _ result: PageResult) async throws {
        var added = 0
        defer {
            leased.remove(entry.url)
            frontierChanged(added: added)
        }
        var entry = entry
        entry.attempts = result.report.attempts
        // `sortLinks` kept the links of every page that is not retried.
        guard let sorted = waitingLinks.removeValue(forKey: entry.url) else {
            summary.retries += 1
            let delay = retryPolicy.delay(attempt: entry.attempts, retryAfter: result.retryAfter)
            try await store.retry(entry, notBefore: Date().addingTimeInterval(delay))
            return
        }
        var report = result.report
        report.links = result.links.count
        if configuration.runs > 1, store.isShared { loadedHere.insert(entry.url) }
        report.route = routesReached.removeValue(forKey: entry.url)
        let (worker, aliases) = (configuration.worker, result.aliases)
        added = sorted.discovered.count
        try await storeInOrder { [store, entry, report] in
            try await store.complete(entry, worker: worker, report: report, aliases: aliases,
                                     discovered: sorted.discovered, skipped: sorted.skipped, links: sorted.links)
        }
    }

    var retryPolicy: RetryPolicy {
        RetryPolicy(retries: configuration.retries, backoff: configuration.backoff)
    }

    /// Sorts the links of a page whose load ended, unless it will be retried,
    /// and keeps them until its report is stored (`finish`).
    func sortLinks(of entry: FrontierEntry, _ result: PageResult) {
        guard !retryPolicy.retries(result.report) else { return }
        let found: [FrontierEntry], links: [PageLink]
        var skipped: SkippedLinks
        (found, skipped, links) = self.links.classify(result.links, embedded: result.embedded, from: entry, shownAt: result.report.finalURL ?? entry.url)
        var discovered = found.filter { offer($0.url) }
        skipped.retain { offer($0) }
        if !result.resourceAnswers.isEmpty {
            // A resource the rendered page asked for itself is reported from that answer, not asked for again.
            let now = Date()
            var answered: [PageLoadReport] = []
            discovered.removeAll { entry in
                guard entry.kind.isResource, let answer = result.resourceAnswers[entry.url] else { return false }
                answered.append(answer.report(for: entry, at: now))
                return true
            }
            skipped.append(answered: answered)
        }
        if let recentChecks = configuration.recentChecks {
            // A link or resource outside the scope answered lately is reported from that answer, not checked again.
            let now = Date()
            var answered: [PageLoadReport] = []
            discovered.removeAll { entry in
                guard entry.kind.isOutside, let report = recentChecks.report(for: entry, now: now) else { return false }
                answered.append(report)
                return true
            }
            skipped.append(answered: answered)
        }
        let loading = Set(discovered.map(\.url))
        for link in links where link.reached != nil && routesReached[link.target] == nil && loading.contains(link.target) {
            routesReached[link.target] = PageLoadReport.RouteInfo(link)
        }
        let sorted = SortedLinks(discovered: discovered, skipped: skipped, links: links)
        waitingLinks[entry.url] = sorted
        if !sorted.discovered.isEmpty { wakeAll() }  // a waiting worker may offer them now
    }

    /// Adds the links found on pages whose reports wait for their late window
    /// to the frontier now, so that a worker with nothing to load need not
    /// wait for the window; their reports are stored later without them.
    /// Returns whether there were any.
    func offerWaitingLinks() async throws -> Bool {
        var entries: [FrontierEntry] = []
        for url in waitingLinks.keys where !waitingLinks[url]!.discovered.isEmpty {
            entries += waitingLinks[url]!.discovered
            waitingLinks[url]!.discovered = []
        }
        guard !entries.isEmpty else { return false }
        // Written even when the crawl is being cancelled: the pages' own
        // reports no longer carry these links, so a dropped write loses them.
        try await Task {
            try await self.storeInOrder { [store, entries] in
                _ = try await store.enqueue(entries)
                return CompletionReports()
            }
        }.value
        frontierChanged(added: entries.count)  // the other waiting workers may lease them too
        return true
    }

    /// Whether `url` is offered to the frontier for the first time in this run.
    func offer(_ url: String) -> Bool {
        if offered.count >= Self.rememberedOffers { offered.removeAll(keepingCapacity: true) }
        return offered.insert(url).inserted
    }

    /// Runs `write` once every earlier write has ended, then delivers the
    /// reports it stored: delivery order is store order.
    func storeInOrder(_ write: @escaping @Sendable () async throws -> some Sequence<PageLoadReport> & Sendable) async throws {
        let previous = storing
        let current = Task {
            _ = await previous?.result  // an earlier write's failure is its own caller's to report
            deliver(try await write())
        }
        storing = current
        try await withTaskCancellationHandler {
            try await current.value
        } onCancel: {
            current.cancel()
        }
    }

    func deliver(_ reports: some Sequence<PageLoadReport>) {
        for report in reports {
            summary.add(report)
            onReport(report)
        }
    }
}
