import NavWatchCLI

await NavwatchCommand.runAsMain()
