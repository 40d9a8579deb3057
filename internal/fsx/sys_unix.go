//go:build unix

package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// removeFile unlinks name.
func removeFile(name string) error { return os.Remove(name) }

// replaceFile renames from over to: rename(2) replaces atomically.
func replaceFile(from, to string) error { return os.Rename(from, to) }

// lstatType returns the type bits and permission bits of path, not
// following a final symlink.
func lstatType(path string) (typ, perm fs.FileMode, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, 0, err
	}
	return fi.Mode().Type(), fi.Mode().Perm(), nil
}

// sameFile compares identities as the reference does: the inode always,
// the device only when both sides report a non-zero one.
func sameFile(a, b fs.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return os.SameFile(a, b)
	}
	return newIdent(0, 0, uint64(sa.Dev), uint64(sa.Ino)).SameFile(newIdent(0, 0, uint64(sb.Dev), uint64(sb.Ino)))
}

// ignorableSyncError reports whether a directory fsync failed only because
// the file system cannot fsync directories. It is the one list of such
// errors: EINVAL (Linux file systems without directory fsync, FUSE),
// ENOTSUP/EOPNOTSUPP (network and some FUSE file systems), EBADF (systems
// that refuse fsync on a descriptor opened read-only, as a directory is).
func ignorableSyncError(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EBADF)
}

// SyncDir fsyncs a directory so that a rename, link or creation in it is
// durable. File systems that cannot fsync directories are tolerated
// (ignorableSyncError). Errors are the os package's *fs.PathError (op
// "open" or "sync").
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !ignorableSyncError(err) {
		return err
	}
	return nil
}

// linkUnsupported reports a link(2) failure meaning "no hard links here".
func linkUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.ENOSYS)
}

// renameUnsupported reports a no-replace rename failure meaning "not
// available here": the primitive is missing (ENOSYS, the portable build's
// ENOTSUP) or the file system rejects the flag (EINVAL).
func renameUnsupported(err error) bool {
	return errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EOPNOTSUPP) ||
		errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EINVAL)
}

// linkFile is os.Link; tests replace it to play a file system without
// hard links (FAT, exFAT, some network file systems answer EPERM).
var linkFile = os.Link

// publishTemp is the create-only publication step: link(2), which fails on
// any existing entry, even a dangling symlink; on file systems without hard
// links, an atomic no-replace rename. Writing dest directly would never be
// atomic, so where neither exists it reports *unsupportedError. On success
// tmp may still exist (as a second name of the published file).
func publishTemp(tmp, dest string) error {
	err := linkFile(tmp, dest)
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return &ExistsError{Path: dest}
	}
	if !linkUnsupported(err) {
		return err
	}
	err = renameNoReplace(tmp, dest)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist):
		return &ExistsError{Path: dest}
	case renameUnsupported(err):
		return &unsupportedError{err: err}
	}
	return err
}

// Getwd returns the physical working directory, getcwd(3), as Node's
// process.cwd() and Python's os.getcwd() report it; os.Getwd may return a
// logical $PWD that goes through symlinks.
func Getwd() (string, error) { return unix.Getwd() }

// RealPath returns the canonical path of an existing p, every symlink
// resolved (Node's fs.realpathSync, Python's os.path.realpath(strict=True)).
func RealPath(p string) (string, error) { return filepath.EvalSymlinks(p) }

// IsLinkEntry reports whether a directory entry read from dir is a link to
// be skipped, never followed: a symbolic link.
func IsLinkEntry(dir string, e fs.DirEntry) bool { return e.Type()&fs.ModeSymlink != 0 }

// Errno returns the POSIX error number behind err, for messages in the
// style of Node and libuv ("ENOENT: no such file or directory").
func Errno(err error) (syscall.Errno, bool) {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno, true
	}
	return 0, false
}
