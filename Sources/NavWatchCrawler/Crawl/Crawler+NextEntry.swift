import Foundation

// Leasing the next URL to load (robots.txt checked), keeping leases
// alive, and the workers' waits for a page to finish.
extension Crawler {
    /// The next URL to load: an entry leased from the frontier (one robots.txt
    /// refuses is stored as skipped, and the next one leased); nil when the crawl is over.
    func nextEntry() async throws -> FrontierEntry? {
        while !Task.isCancelled {
            let changesSeen = changes
            let now = Date()
            if !store.isShared, case .wait(let until) = leaseGate.turn(now: now) {
                if try await offerWaitingLinks() { continue }
                await waitForChange(until: leaseDeadline(until))
                continue
            }
            let request = LeaseRequest(worker: configuration.worker, now: now,
                                       until: now.addingTimeInterval(configuration.leaseDuration.seconds),
                                       hostDelay: configuration.delay.seconds,
                                       externalHostDelay: configuration.externalDelay.seconds,
                                       maxPages: configuration.maxPages, hostConcurrency: configuration.hostConcurrency)
            switch try await store.lease(request) {
            case .finished:
                leaseGate.finished()
                wakeAll()  // for the others to hear it
                return nil
            case .wait(let until):
                leaseGate.nothingReady(until: until, stale: changes != changesSeen)
                if changes != changesSeen { continue }  // the frontier changed meanwhile: ask again
                if try await offerWaitingLinks() { continue }
                await waitForChange(until: leaseDeadline(until))
            case .leased(let entry):
                leased.insert(entry.url)
                if configuration.obeyRobots, let url = URL(string: entry.url), let robots, await !robots.allows(url) {
                    let worker = configuration.worker
                    try await storeInOrder { [store] in
                        try await store.complete(entry, worker: worker, report: .skipped(entry, .robots),
                                                 aliases: [], discovered: [], skipped: [], links: [])
                    }
                    leased.remove(entry.url)
                    frontierChanged(added: 0)
                    continue
                }
                return entry
            }
        }
        return nil
    }

    /// When a worker told that nothing is ready (until `until`, when given)
    /// asks again at the latest. Local pages wake it when they finish; other
    /// workers' do not, so a shared store is asked again every poll interval.
    func leaseDeadline(_ until: Date?) -> ContinuousClock.Instant {
        let poll = store.isShared ? configuration.pollInterval : .milliseconds(Int64(leaseGate.poll * 1000))
        var deadline = clock.now + poll
        if let until {
            deadline = min(deadline, clock.now + .milliseconds(Int64(max(0, until.timeIntervalSinceNow) * 1000) + 1))
        }
        return deadline
    }

    /// The frontier changed: `added` links were added to it, or none (a page
    /// finished, an entry was skipped). Counts the change, gives the lease
    /// gate its permits, and wakes every waiting worker to ask.
    func frontierChanged(added: Int) {
        changes += 1
        leaseGate.frontierChanged(added: added)
        wakeAll()
    }

    /// Waits until `entry.spacing` has passed since this crawler's workers
    /// last asked the entry's host, and counts this request as the host's
    /// last. Leases are spaced in the store, but a worker leases its next
    /// page while one loads, so after a stall two workers would otherwise ask
    /// at once. Returns at once for a host whose requests are not kept apart,
    /// and when the task is cancelled.
    func waitForTurn(_ entry: FrontierEntry) async {
        guard entry.spacing > 0 else { return }
        let now = clock.now
        let turn = hostTurns[entry.host].map { max(now, $0) } ?? now
        hostTurns[entry.host] = turn + .seconds(entry.spacing)
        if turn > now { try? await Task.sleep(until: turn, clock: clock) }
    }

    /// Keeps this crawler's leases alive while it runs.
    func renewLeases() async {
        let period = configuration.leaseDuration / 3
        while (try? await Task.sleep(for: period)) != nil {
            let until = Date().addingTimeInterval(configuration.leaseDuration.seconds)
            try? await store.renewLeases(Array(leased), worker: configuration.worker, until: until)
        }
    }

    /// Waits until a page finishes or `deadline` passes.
    func waitForChange(until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { continuation in
            waiters.append(continuation)
            Task { [clock] in
                try? await Task.sleep(until: deadline, clock: clock)
                self.wakeAll()
            }
        }
    }

    func wakeAll() {
        let current = waiters
        waiters.removeAll()
        for waiter in current { waiter.resume() }
    }
}
