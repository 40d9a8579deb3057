//go:build windows

package memory

import "testing"

// mkfifo creates a FIFO; Windows has none in its file system.
func mkfifo(t testing.TB, path string) bool { return false }
