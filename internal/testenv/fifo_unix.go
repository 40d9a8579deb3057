//go:build unix

package testenv

import (
	"syscall"
	"testing"
)

// MakeFIFO creates a real FIFO at p (issue 11 item 4).
func MakeFIFO(t testing.TB, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
}
