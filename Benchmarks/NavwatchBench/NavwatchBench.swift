// The benchmark's in-process measurements; Scripts/bench runs them and
// prints every figure in one table. Each subcommand prints one JSON line.
import ArgumentParser

@main
struct NavwatchBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navwatch-bench",
        abstract: "In-process measurements for Scripts/bench.",
        subcommands: [BridgeOverhead.self, MemoryOverTime.self, GuardOverhead.self, RouteOverhead.self, HTMLReadingTime.self])
}
