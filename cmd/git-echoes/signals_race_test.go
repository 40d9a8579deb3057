package main

import (
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestSignalExitNotRacedByCommand (issue 17): once the handler has taken a
// SIGTERM and released the lock, the command (whose next write now fails
// with the lock busy) must not end the process with its own status before
// the handler's exit 143. stop, called when the command returns, waits.
func TestSignalExitNotRacedByCommand(t *testing.T) {
	inHandler, proceed := make(chan struct{}), make(chan struct{})
	codes := make(chan int, 1)
	afterSignalRelease = func() { close(inHandler); <-proceed }
	exit = func(code int) { codes <- code; runtime.Goexit() }
	defer func() {
		// The handler has exited (Goexit), leaving stop blocked for good,
		// as a real exit would end it.
		afterSignalRelease, exit = nil, os.Exit
	}()
	stop := releaseOnSignal()
	signals <- syscall.SIGTERM
	<-inHandler
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("stop returned while the handler was exiting: the command's status races exit 143")
	case <-time.After(200 * time.Millisecond):
	}
	close(proceed)
	if code := <-codes; code != exitTerminated {
		t.Fatalf("handler exit %d, want %d", code, exitTerminated)
	}
}
