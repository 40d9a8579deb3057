package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// ExistsError reports that a create-only write found an entry (of any kind,
// a dangling symlink included) at its destination and left it untouched.
// It matches fs.ErrExist.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string { return "create " + e.Path + ": " + fs.ErrExist.Error() }

// Is makes errors.Is(err, fs.ErrExist) true.
func (e *ExistsError) Is(target error) bool { return target == fs.ErrExist }

// unsupportedError wraps the *os.LinkError of a file system that offers
// neither hard links nor an atomic no-replace rename.
type unsupportedError struct{ err error }

func (e *unsupportedError) Error() string { return e.err.Error() }
func (e *unsupportedError) Unwrap() error { return e.err }

// ErrChanged reports that a temporary file was replaced or is no longer a
// regular file between its creation and the identity check
// (ecc-conformance §9.1: "destination changed while it was being created").
var ErrChanged = errors.New("file changed while it was being created")

// PublishOptions tunes Publish.
type PublishOptions struct {
	// Temp is the temporary file's full path, in the destination's
	// directory. It is created exclusively and removed before Publish
	// returns, whatever happens. Required.
	Temp string
	// Mode, when non-zero, is given to the file before publication;
	// otherwise it keeps the temporary file's 0600 (minus the umask).
	Mode fs.FileMode
	// Created, when set, runs after the temporary file is created and has
	// passed the identity check; an error aborts Publish and is returned
	// as is.
	Created func() error
	// BeforePublish, when set, runs after the content is durable and right
	// before the publication step; an error aborts Publish and is returned
	// as is.
	BeforePublish func() error
}

// Publish writes data to dest without ever replacing anything there
// (ecc-conformance §9.1, and the daily entries of protocol §9): an
// exclusive temporary file opt.Temp, an identity check (fstat of the open
// file against lstat of its name: both the same regular file), the content,
// fsync, then the create-only publication step (a hard link, which fails on
// any existing entry, dangling symlink included; without hard links an
// atomic no-replace rename: renameat2 RENAME_NOREPLACE on Linux,
// renamex_np RENAME_EXCL on macOS, MoveFileEx without
// MOVEFILE_REPLACE_EXISTING on Windows, which is also the primary step
// there) and a directory fsync.
//
// Errors are raw, for callers with wording of their own: *ExistsError when
// dest exists; ErrChanged from the identity check; the callbacks' errors as
// they returned them; the os package's *fs.PathError for the temporary file
// (ops "open", "stat", "write", "sync", "chmod", "close"); *os.LinkError from
// the publication step (op "link" or "rename"; on a file system with neither
// primitive it is the rename's, wrapped); SyncDir's errors for the directory.
// A failure to remove the temporary file after a successful publication is
// ignored: the content is published and the name is the caller's alone.
func Publish(dest string, data []byte, opt PublishOptions) error {
	tmp := opt.Temp
	f, err := openExclusive(tmp)
	if err != nil {
		return err
	}
	defer func() { _ = removeFile(tmp) }()
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return err
	}
	li, lerr := os.Lstat(tmp)
	if lerr != nil || !fi.Mode().IsRegular() || !li.Mode().IsRegular() || !sameFile(fi, li) {
		_ = f.Close()
		return ErrChanged
	}
	if opt.Created != nil {
		if err := opt.Created(); err != nil {
			_ = f.Close()
			return err
		}
	}
	if err := fillTemp(f, opt.Mode, data); err != nil {
		return err
	}
	if opt.BeforePublish != nil {
		if err := opt.BeforePublish(); err != nil {
			return err
		}
	}
	if err := injected("publish"); err != nil {
		return err
	}
	if err := publishTemp(tmp, dest); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(dest))
}
