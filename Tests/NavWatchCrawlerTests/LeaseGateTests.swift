import Foundation
@testable import NavWatchCrawler
import Testing

@Suite("LeaseGate: which workers ask the store for the next entry")
struct LeaseGateTests {
    let start = Date(timeIntervalSince1970: 1_000)

    @Test("every worker asks until the store first says nothing is ready; then none until the frontier changes")
    func scarce() {
        var gate = LeaseGate()
        for _ in 0..<5 { #expect(gate.turn(now: start) == .ask) }
        gate.nothingReady(until: nil, stale: false)
        #expect(gate.turn(now: start) == .wait(until: start.addingTimeInterval(1)))
        gate.frontierChanged(added: 0)  // a page finished: one question
        #expect(gate.turn(now: start) == .ask)
        #expect(gate.turn(now: start) == .wait(until: start.addingTimeInterval(1)))
    }

    @Test("links added give one question each, and another answer that nothing is ready takes those left")
    func added() {
        var gate = LeaseGate()
        gate.nothingReady(until: nil, stale: false)
        gate.frontierChanged(added: 3)
        #expect(gate.permits == 3)
        #expect(gate.turn(now: start) == .ask)
        #expect(gate.turn(now: start) == .ask)
        gate.nothingReady(until: nil, stale: false)
        #expect(gate.permits == 0)
        #expect(gate.turn(now: start) == .wait(until: start.addingTimeInterval(1)))
    }

    @Test("an answer to a question asked before the frontier changed takes no permits")
    func stale() {
        var gate = LeaseGate()
        gate.nothingReady(until: nil, stale: false)
        gate.frontierChanged(added: 2)
        #expect(gate.turn(now: start) == .ask)
        gate.nothingReady(until: nil, stale: true)
        #expect(gate.permits == 1)
    }

    @Test("one question once the time the store named has come, or a poll after the last question")
    func time() {
        var gate = LeaseGate(poll: 1)
        #expect(gate.turn(now: start) == .ask)
        let ready = start.addingTimeInterval(0.25)
        gate.nothingReady(until: ready, stale: false)
        #expect(gate.turn(now: start.addingTimeInterval(0.1)) == .wait(until: ready))
        #expect(gate.turn(now: ready) == .ask)
        gate.nothingReady(until: nil, stale: false)
        #expect(gate.turn(now: ready.addingTimeInterval(0.5)) == .wait(until: ready.addingTimeInterval(1)))
        #expect(gate.turn(now: ready.addingTimeInterval(1)) == .ask)
        #expect(gate.turn(now: ready.addingTimeInterval(1)) == .wait(until: ready.addingTimeInterval(2)))
    }

    @Test("once the crawl is over every worker asks, to hear it")
    func finished() {
        var gate = LeaseGate()
        gate.nothingReady(until: nil, stale: false)
        gate.finished()
        #expect(gate.permits == nil)
        for _ in 0..<3 { #expect(gate.turn(now: start) == .ask) }
    }
}
