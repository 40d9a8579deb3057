package main

import (
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/git-echoes/git-echoes/gitvault"
)

// Exit statuses after a signal: 128 + the signal number, as a shell reports
// a process the signal killed (issue 11 item 2).
const (
	exitInterrupted = 130 // SIGINT (Ctrl-C)
	exitTerminated  = 143 // SIGTERM
)

// signals receives SIGINT and SIGTERM while a command runs.
var signals = make(chan os.Signal, 1)

// runMain is main without the final os.Exit: it runs the command with
// releaseOnSignal in place, and releases any lock still held before the
// status is returned.
func runMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stop := releaseOnSignal()
	code := run(args, stdin, stdout, stderr)
	stop()
	// Every command releases its own lock; this catches one left to a
	// goroutine still running when the command returned (an MCP tool call
	// at shutdown).
	_ = gitvault.ReleaseLocks()
	return code
}

// releaseOnSignal makes SIGINT and SIGTERM release the shared lock this
// process holds (gitvault.ReleaseLocks: only a lock file that still holds
// our token, after the write in progress) and exit 130 or 143. Without it
// a killed writer's lock blocks every other writer until it is 60 s old
// (echoes-conformance §6). stop ends the handling.
func releaseOnSignal() (stop func()) {
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	// exiting is taken by the handler for good (it ends in exit) and by
	// stop: once a signal is being handled, the command's own status must
	// not race exit 130/143. Without it a command whose next write fails
	// because the handler released its lock returned exit 2 first, on a
	// loaded machine (issue 17, TestCrashKilledWriters).
	var exiting sync.Mutex
	stopped := false
	go func() {
		select {
		case s := <-signals:
			exiting.Lock()
			if stopped { // the command finished first: its status stands
				exiting.Unlock()
				return
			}
			_ = gitvault.ReleaseLocks()
			if afterSignalRelease != nil {
				afterSignalRelease()
			}
			if s == os.Interrupt {
				exit(exitInterrupted)
			}
			exit(exitTerminated)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(signals)
		exiting.Lock() // blocks for good while a signal is being handled
		stopped = true
		exiting.Unlock()
		close(done)
	}
}

// exit is os.Exit; afterSignalRelease runs between the handler's release
// and its exit (both replaced by tests only).
var (
	exit               = os.Exit
	afterSignalRelease func()
)

// leaveSignalsToCommand hands SIGINT and SIGTERM to a command that shuts
// down gracefully on them itself (mcp); runMain still releases any lock
// left when it returns.
func leaveSignalsToCommand() { signal.Stop(signals) }
