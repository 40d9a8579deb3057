//go:build unix

package fsx

import (
	"os"
	"time"
)

// The lock file's accesses (echoes-conformance §6). On POSIX systems these are the plain os
// calls: an open file never prevents another process from unlinking,
// renaming or touching it.

func readLockFile(path string) ([]byte, error) { return ReadFile(path) } // never blocks on a FIFO

func touchLockFile(path string, t time.Time) error { return os.Chtimes(path, t, t) }

func removeLockFile(path string) error { return os.Remove(path) }

// lockCreateBusy reports whether a failed O_EXCL create means "held" even
// though the error is not EEXIST. Never on POSIX systems.
func lockCreateBusy(path string, err error) bool { return false }

// lockInUse reports whether a removal failed only because another process
// has the file open. Never on POSIX systems.
func lockInUse(err error) bool { return false }
