package main

import (
	"fmt"
	"io"

	"github.com/git-echoes/git-echoes/hooks"
)

func init() { registerCommand("hook", runHook) }

const hookUsage = `usage: git echoes hook <name>

Agent hooks (read the event JSON on stdin, print the hook response):
  session-start    Claude Code / Codex SessionStart: the read-only vault status
                   card, then one line per page, among the 8 changed most
                   recently, that cites code changed since it was written
                   (drifted or missing, as git echoes stale says); nothing when
                   freshness cannot be read from Git (no commit, a shallow
                   boundary)
`

// runHook dispatches `git echoes hook <name>`. Hooks always exit 0 once
// dispatched: a failing hook must never block an agent session.
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		io.WriteString(stdout, hookUsage)
		return exitOK
	}
	if len(args) != 1 {
		fmt.Fprintf(stderr, "%sgit echoes hook: error: expected exactly one hook name\n", hookUsage)
		return exitUsage
	}
	switch args[0] {
	case "session-start":
		io.WriteString(stdout, hooks.SessionStart(stdin))
		return exitOK
	}
	fmt.Fprintf(stderr, "%sgit echoes hook: error: unknown hook %q\n", hookUsage, args[0])
	return exitUsage
}
