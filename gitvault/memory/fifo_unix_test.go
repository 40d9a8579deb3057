//go:build unix

package memory

import (
	"syscall"
	"testing"
)

// mkfifo creates a FIFO; it reports false where the system has none.
func mkfifo(t testing.TB, path string) bool {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return true
}
