import Glibc
import NavWatchCLI

// WebKit's own allocator (libpas) waits for its locks by spinning with
// sched_yield: on two cores the IPC threads of navwatch's own process
// (`ReceiveQueue`) sometimes spun for a whole second, both at once. With
// `Malloc=1` WebKit uses the system's allocator, which waits in the kernel.
// A process reads it before main runs, so a command that may start WebKit
// starts navwatch again with it, then takes it back out: the web processes,
// where libpas is faster and the IPC threads do not spin, keep it. A
// `Malloc` the user set is left alone.
let restartedWithSystemAllocator = "NAVWATCH_SYSTEM_ALLOCATOR"
if getenv(restartedWithSystemAllocator) != nil {
    unsetenv("Malloc")
    unsetenv(restartedWithSystemAllocator)
} else if getenv("Malloc") == nil, NavwatchCommand.mayStartWebKit(Array(CommandLine.arguments.dropFirst())),
          let executable = realpath("/proc/self/exe", nil) {
    setenv("Malloc", "1", 1)
    setenv(restartedWithSystemAllocator, "1", 1)
    execv(executable, CommandLine.unsafeArgv)
    // Not started again: go on with WebKit's allocator.
    unsetenv("Malloc")
    unsetenv(restartedWithSystemAllocator)
}

await NavwatchCommand.runAsMain()
