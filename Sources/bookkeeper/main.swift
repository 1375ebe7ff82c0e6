import BookkeeperCLI

Bookkeeper.runAndExit()
