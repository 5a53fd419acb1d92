@testable import NavWatchCrawler
import Testing

@Suite("HostPacing: how far apart a host that pushed back is asked")
struct HostPacingTests {
    @Test("a push back widens the interval (1 s, then double, at least Retry-After, at most a minute); answers ease it")
    func widenAndEase() {
        var pacing = HostPacing()
        pacing.answered()
        #expect(pacing == HostPacing())  // not slowed: nothing to ease
        pacing.pushedBack(retryAfter: nil, at: 100)
        #expect(pacing.interval == 1 && pacing.tooFast == 0 && pacing.pushBacks == 1)
        pacing.pushedBack(retryAfter: nil, at: 100.5)  // within the interval: asked before the last push back
        #expect(pacing.interval == 1 && pacing.pushBacks == 2)
        pacing.pushedBack(retryAfter: 5, at: 101.5)
        #expect(pacing.interval == 5 && pacing.tooFast == 1 && pacing.widest == 5)
        pacing.pushedBack(retryAfter: nil, at: 200)
        #expect(pacing.interval == 10)
        pacing.pushedBack(retryAfter: 3600, at: 300)
        #expect(pacing.interval == 60 && pacing.widest == 60)
        // Three answers halve it, down to twice the interval that was too fast.
        for _ in 0..<3 { pacing.answered() }
        #expect(pacing.interval == 30)
        for _ in 0..<12 { pacing.answered() }
        #expect(pacing.interval == 20)   // 10 was too fast: never below 20
    }

    @Test("after one push back at the crawl's pace, the host gets about that pace back")
    func recovers() {
        var pacing = HostPacing()
        pacing.pushedBack(retryAfter: nil, at: 1)
        var intervals: [Double] = []
        for _ in 0..<9 {
            pacing.answered()
            intervals.append(pacing.interval)
        }
        #expect(intervals == [1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125])
        var paced = HostPacing()
        paced.pushedBack(retryAfter: nil, at: 1, leaseGap: 0.04)
        for _ in 0..<30 { paced.answered() }
        #expect(paced.interval == 0.08 && paced.tooFast == 0.04)
        // From the crawl's own pace with no gap known: back to it.
        for _ in 0..<6 { pacing.answered() }
        #expect(pacing.interval == 0)
    }

    @Test("a server that refuses more than one request per 0.3 s is asked at most that often after a few push backs")
    func converges() {
        var pacing = HostPacing()
        var now = 0.0, last = -1.0, pushBacks: [Double] = []
        for _ in 0..<200 {
            now += max(pacing.interval, 0.02)  // the crawl's own pace: 50 requests a second
            if now - last < 0.3 {
                pacing.pushedBack(retryAfter: nil, at: now, leaseGap: now - last)
                pushBacks.append(now)
            } else {
                pacing.answered()
            }
            last = now
        }
        #expect(pushBacks.count <= 6)
        #expect(pushBacks.last! < now / 2)
        #expect(pacing.interval >= 0.3)
    }
}
