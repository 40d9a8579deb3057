package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/git-echoes/git-echoes/internal/fswatch"
	"github.com/git-echoes/git-echoes/mcpserver"
)

// startMCPWatch starts the change notification behind the MCP server's
// answer memo (issue 19). With verbose, every change of its mode (events,
// or revalidation and why) is one line on stderr, which MCP clients show
// as the server's log (stdout is the protocol's), and done reports what
// the memo did before it stops the watcher.
func startMCPWatch(stderr io.Writer, verbose bool) (w *fswatch.Watcher, stats *mcpserver.MemoStats, done func()) {
	opt := fswatch.Options{}
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "git echoes mcp: "+format+"\n", args...)
	}
	if verbose {
		opt.Logf = say
	}
	w = fswatch.New(opt)
	stats = &mcpserver.MemoStats{}
	return w, stats, func() {
		if verbose {
			say("%s; %s", w.State(), stats)
		}
		_ = w.Close()
	}
}
