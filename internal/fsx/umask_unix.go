//go:build unix && !(linux && !echoes_portable)

package fsx

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// initUmask is the process umask, read during package initialization.
//
// macOS and FreeBSD have no /proc/self/status, and umask(2) can only be read
// by setting it. It is set to 0077 (the most restrictive value, so that a
// file created by another thread in between gets no more permissions than
// it would have had) and restored at once. Package initialization runs on
// one goroutine before main; no package this program imports starts a
// goroutine that creates files during initialization, so nothing can
// observe the brief change. Reading it later, once, would race with the
// program's own goroutines (parallel scans, the MCP server, the lock
// refresher).
var initUmask = func() fs.FileMode {
	old := unix.Umask(0o077)
	unix.Umask(old)
	return fs.FileMode(old) & fs.ModePerm
}()

// processUmask returns the umask read at initialization.
func processUmask() fs.FileMode { return initUmask }
