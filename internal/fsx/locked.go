package fsx

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// LockFileError reports that WriteLocked could not create its lock file;
// Err is the os package's error (matching fs.ErrExist when another writer
// holds the lock).
type LockFileError struct {
	Path string // the lock file, p + ".lock"
	Err  error
}

func (e *LockFileError) Error() string { return "lock " + e.Path + ": " + e.Err.Error() }
func (e *LockFileError) Unwrap() error { return e.Err }

// WriteLocked replaces p with data the way Git writes its own files (the
// lockfile protocol of Git's lockfile.c): p + ".lock" is created
// exclusively (an existing one means another writer is at work, and
// nothing is touched), filled, fsynced and renamed over p, atomically
// (replaceFile: rename(2), on Windows MoveFileEx with
// MOVEFILE_REPLACE_EXISTING|MOVEFILE_WRITE_THROUGH); then the directory is
// fsynced. The lock file takes p's permission bits (p followed if it is a
// symlink, as Git does), 0644 for a new p, minus the umask. On failure the
// lock file is removed. Errors: *LockFileError when the lock cannot be
// created, otherwise the os package's error of the failed step.
func WriteLocked(p string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(p); err == nil {
		mode = fi.Mode().Perm()
	}
	lock := p + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_CLOEXEC, mode)
	if err != nil {
		return &LockFileError{Path: lock, Err: err}
	}
	_, werr := f.Write(data)
	if err := f.Sync(); werr == nil {
		werr = err
	}
	if err := f.Close(); werr == nil {
		werr = err
	}
	if werr == nil {
		werr = replaceFile(lock, p)
	}
	if werr != nil {
		_ = removeFile(lock)
		return werr
	}
	return SyncDir(filepath.Dir(p))
}
