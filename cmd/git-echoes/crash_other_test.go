//go:build !unix

package main

import "testing"

// TestCrashKilledWriters is the Unix crash test of crash_test.go: it kills
// the command with SIGKILL and SIGTERM, which Windows does not have (a
// process is only ever ended there by TerminateProcess, with no handler to
// test).
func TestCrashKilledWriters(t *testing.T) {
	t.Skip("needs SIGKILL and SIGTERM (Unix only); see crash_test.go")
}
