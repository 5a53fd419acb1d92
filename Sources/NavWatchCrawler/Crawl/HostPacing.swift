/// How far apart a host's requests are kept after it pushed back, for every
/// worker of a crawl: the state machine of one host, which the crawl store
/// keeps beside the host's pause (`CrawlStore.pushBack`, `lease`, `complete`).
///
/// - A push back (an answer of 429 or 503) widens the interval: to one
///   second the first time, then to twice what it was, never less than the
///   server's `Retry-After`, never more than a minute. What was too fast is
///   remembered: the interval in force, or, at the crawl's own pace, the
///   time between the host's last two leases. Push backs within the
///   interval of the last widening widen nothing: their requests were asked
///   before it (workers lease their next page while one loads).
/// - Every `answersToEase`-th answer in a row that is not a push back halves
///   the interval, but not below twice what was too fast; below `least` it
///   ends.
///
/// A host that answers 429 above some rate is thus asked below that rate
/// after a few push backs, and a host that pushed back once at the crawl's
/// pace is asked at about that pace again after a dozen answers. Pure: no I/O.
package struct HostPacing: Sendable, Equatable {
    /// Seconds kept between two requests to the host (at least the crawl's
    /// delay applies anyway); 0 when the host is not slowed down.
    package var interval: Double = 0
    /// What was too fast when the host last pushed back (seconds between requests).
    package var tooFast: Double = 0
    /// Answers since the last push back or easing.
    package var answers = 0
    /// Push backs in all.
    package var pushBacks = 0
    /// The widest interval the host was given.
    package var widest: Double = 0
    /// When the interval was last widened, in seconds since 1970; 0: never.
    package var widenedAt: Double = 0

    package static let first = 1.0
    package static let widestAllowed = 60.0
    package static let answersToEase = 3
    package static let least = 0.05

    package init(interval: Double = 0, tooFast: Double = 0, answers: Int = 0, pushBacks: Int = 0, widest: Double = 0,
                 widenedAt: Double = 0) {
        self.widenedAt = widenedAt
        self.interval = interval
        self.tooFast = tooFast
        self.answers = answers
        self.pushBacks = pushBacks
        self.widest = widest
    }

    /// The host answered 429 or 503 at `now` (seconds since 1970), asking to
    /// wait `retryAfter` seconds (or nil); `leaseGap` is the time between its
    /// last two leases.
    package mutating func pushedBack(retryAfter: Double?, at now: Double, leaseGap: Double = 0) {
        pushBacks += 1
        answers = 0
        if widenedAt > 0, now - widenedAt < interval {
            interval = min(Self.widestAllowed, max(interval, retryAfter ?? 0))
            widest = max(widest, interval)
            return
        }
        widenedAt = now
        tooFast = max(interval, leaseGap)
        interval = min(Self.widestAllowed, max(retryAfter ?? 0, interval == 0 ? Self.first : interval * 2))
        widest = max(widest, interval)
    }

    /// The host answered, not with a push back.
    package mutating func answered() {
        guard interval > 0 else { return }
        answers += 1
        guard answers >= Self.answersToEase else { return }
        answers = 0
        interval = max(interval / 2, tooFast * 2)
        if interval < Self.least { interval = 0 }
    }

    /// Whether an answer with `status` is a push back.
    package static func isPushBack(_ status: Int?) -> Bool {
        status == 429 || status == 503
    }
}

/// What a crawl's hosts did, for its closing summary.
package struct HostStatistics: Sendable, Equatable {
    package var host: String
    /// Pages loaded and links checked on the host.
    package var requests: Int
    package var pacing: HostPacing

    package init(host: String, requests: Int, pacing: HostPacing) {
        self.host = host
        self.requests = requests
        self.pacing = pacing
    }
}
