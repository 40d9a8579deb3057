//go:build windows

package fsx

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/windows"
)

// The lock file's accesses (echoes-conformance §6) under Windows sharing rules. The reference
// engine creates the lock with os.open(O_CREAT|O_EXCL|O_WRONLY), which is
// CreateFile(CREATE_NEW) there, and reads it with open(), both sharing read
// and write but not delete. The os package does the same. So that our own
// reads and touches never make another process's removal fail, they share
// delete access too; removals retry briefly while someone else (the
// reference reading the token) holds the file open.

// readLockFile reads the lock, following symlinks like os.ReadFile.
func readLockFile(path string) ([]byte, error) {
	h, err := openHandle(path, windows.GENERIC_READ, windows.FILE_ATTRIBUTE_NORMAL)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(h), path)
	defer f.Close()
	return io.ReadAll(f)
}

// touchLockFile sets the lock's modification (and access) time. os.Chtimes
// opens the file sharing only write access, which would fail while another
// process reads the token, and make that read fail while it runs.
func touchLockFile(path string, t time.Time) error {
	h, err := openHandle(path, windows.FILE_WRITE_ATTRIBUTES, windows.FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		return &fs.PathError{Op: "chtimes", Path: path, Err: err}
	}
	defer windows.CloseHandle(h)
	ft := windows.NsecToFiletime(t.UnixNano())
	if err := windows.SetFileTime(h, nil, &ft, &ft); err != nil {
		return &fs.PathError{Op: "chtimes", Path: path, Err: err}
	}
	return nil
}

// removeLockFile deletes the lock, retrying while another process holds it
// open without FILE_SHARE_DELETE.
func removeLockFile(path string) error { return removeFile(path) }

// lockCreateBusy reports whether a failed CREATE_NEW means "held": a file
// whose deletion is pending (its last handle not yet closed) still occupies
// its name, and CreateFile answers ERROR_ACCESS_DENIED for it, not
// ERROR_FILE_EXISTS. When the name is free, ERROR_ACCESS_DENIED is a real
// permission problem and is reported as such.
func lockCreateBusy(path string, err error) bool {
	if !errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		return false
	}
	_, lerr := os.Lstat(path)
	return !errors.Is(lerr, fs.ErrNotExist)
}

// lockInUse reports whether a removal failed only because another process
// has the file open (after removeFile's retries) or is deleting it.
func lockInUse(err error) bool { return busyError(err) }
