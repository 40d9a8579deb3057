//go:build unix

package gitvault

import (
	"syscall"
	"testing"
)

// makeFIFO creates a real FIFO at p (issue 11 item 4).
func makeFIFO(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}
