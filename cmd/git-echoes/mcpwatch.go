package main

import (
	"fmt"
	"io"
	"sync"

	"github.com/git-echoes/git-echoes/internal/fswatch"
)

// startMCPWatch starts the change notification behind the MCP server's
// answer memo (issue 19). With verbose, every change of its mode (events,
// or revalidation and why) is one line on stderr, which MCP clients show
// as the server's log; stdout is the protocol's.
func startMCPWatch(stderr io.Writer, verbose bool) *fswatch.Watcher {
	opt := fswatch.Options{}
	if verbose {
		var mu sync.Mutex
		opt.Logf = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(stderr, "git echoes mcp: "+format+"\n", args...)
		}
	}
	return fswatch.New(opt)
}
