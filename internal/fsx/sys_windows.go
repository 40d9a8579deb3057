//go:build windows

package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows has no umask. New files get 0644, which Go maps to a file
// without FILE_ATTRIBUTE_READONLY (writable, as the reference's files are).
func processUmask() fs.FileMode { return 0 }

// shareAll lets other processes read, write, rename and delete a file we
// hold open, which is what POSIX gives every open file. Without
// FILE_SHARE_DELETE our reads would make another process's unlink (the
// lock's release, a stale lock's removal) or rename (an atomic replace)
// fail with ERROR_SHARING_VIOLATION.
const shareAll = windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE

// ioReparseTagAFUnix is IO_REPARSE_TAG_AF_UNIX (a Unix domain socket).
const ioReparseTagAFUnix = 0x80000023

// longPath returns p in the \\?\ form when it is an absolute path too long
// for the classic Win32 limit, as the os package does for its own calls.
func longPath(p string) string {
	if len(p) < 248 || strings.HasPrefix(p, `\\?\`) || strings.HasPrefix(p, `\\.\`) {
		return p
	}
	if !filepath.IsAbs(p) {
		return p
	}
	p = filepath.Clean(p)
	if strings.HasPrefix(p, `\\`) {
		return `\\?\UNC\` + p[2:]
	}
	return `\\?\` + p
}

func utf16Path(p string) (*uint16, error) { return windows.UTF16PtrFromString(longPath(p)) }

// openHandle opens p with CreateFile(OPEN_EXISTING) and the given access
// and flags, sharing everything.
func openHandle(p string, access, flags uint32) (windows.Handle, error) {
	u, err := utf16Path(p)
	if err != nil {
		return windows.InvalidHandle, err
	}
	return windows.CreateFile(u, access, shareAll, nil, windows.OPEN_EXISTING, flags, 0)
}

// fileAttributeTagInfo is FILE_ATTRIBUTE_TAG_INFO.
type fileAttributeTagInfo struct {
	FileAttributes uint32
	ReparseTag     uint32
}

// typeOf maps file attributes and a reparse tag to fs.FileMode type bits.
// Every name-surrogate reparse point (symlinks, junctions, WSL symlinks:
// IsReparseTagNameSurrogate) is a link: it redirects to another name.
// Other reparse points (deduplicated files, cloud placeholders) hold their
// own data and are files or directories like any other.
func typeOf(attrs, tag uint32) fs.FileMode {
	if attrs&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		switch {
		case tag&0x20000000 != 0:
			return fs.ModeSymlink
		case tag == ioReparseTagAFUnix:
			return fs.ModeSocket
		}
	}
	if attrs&windows.FILE_ATTRIBUTE_DIRECTORY != 0 {
		return fs.ModeDir
	}
	return 0
}

// identOfHandle returns the Ident of an open handle.
func identOfHandle(h windows.Handle) (Ident, error) {
	var bi windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &bi); err != nil {
		return Ident{}, err
	}
	var tag uint32
	if bi.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		var ti fileAttributeTagInfo
		if err := windows.GetFileInformationByHandleEx(h, windows.FileAttributeTagInfo, (*byte)(unsafe.Pointer(&ti)), uint32(unsafe.Sizeof(ti))); err != nil {
			return Ident{}, err
		}
		tag = ti.ReparseTag
	}
	mode := typeOf(bi.FileAttributes, tag)
	if mode == 0 {
		if t, err := windows.GetFileType(h); err == nil && t != windows.FILE_TYPE_DISK {
			mode = fs.ModeIrregular
			if t == windows.FILE_TYPE_PIPE {
				mode = fs.ModeNamedPipe
			}
		}
	}
	size := int64(bi.FileSizeHigh)<<32 | int64(bi.FileSizeLow)
	return newIdent(mode, size, uint64(bi.VolumeSerialNumber), uint64(bi.FileIndexHigh)<<32|uint64(bi.FileIndexLow)), nil
}

// lstatHandleIdent is the Ident of p itself, reparse points not followed.
func lstatHandleIdent(p string) (Ident, error) {
	h, err := openHandle(p, windows.FILE_READ_ATTRIBUTES, windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		return Ident{}, err
	}
	defer windows.CloseHandle(h)
	return identOfHandle(h)
}

// lstatType returns the type bits and permission bits of path, not
// following a final symlink or junction. os.Lstat reports a junction as
// fs.ModeIrregular (Go 1.23+), and every reparse point that is not a
// symlink the same way; those are told apart here by their tags.
func lstatType(path string) (typ, perm fs.FileMode, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, 0, err
	}
	typ, perm = fi.Mode().Type(), fi.Mode().Perm()
	if typ&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		id, err := lstatHandleIdent(path)
		if err != nil {
			return 0, 0, &fs.PathError{Op: "lstat", Path: path, Err: err}
		}
		typ = id.Mode
	}
	return typ, perm, nil
}

// sameFile compares volume serial numbers and file indexes.
func sameFile(a, b fs.FileInfo) bool { return os.SameFile(a, b) }

// retryBusy runs f until it succeeds or fails for another reason than a
// sharing conflict, for at most about half a second. Another process that
// holds a file open without FILE_SHARE_DELETE (any program using the C
// runtime's open, the reference Python engine included) makes deleting or
// replacing that file fail with ERROR_SHARING_VIOLATION or
// ERROR_ACCESS_DENIED until it closes it, typically microseconds later. A
// read-only destination also fails with ERROR_ACCESS_DENIED; that one
// never clears and is reported after the retries.
func retryBusy(f func() error) error {
	delay := time.Millisecond
	for attempt := 0; ; attempt++ {
		err := f()
		if err == nil || attempt >= 9 || !busyError(err) {
			return err
		}
		time.Sleep(delay)
		delay *= 2
	}
}

func busyError(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}

// removeFile deletes name, retrying sharing conflicts briefly.
func removeFile(name string) error { return retryBusy(func() error { return os.Remove(name) }) }

// moveFile is MoveFileEx(from, to, flags|MOVEFILE_WRITE_THROUGH): the call
// returns only once the move is flushed to disk, which stands in for the
// directory fsync Windows cannot do (see SyncDir).
func moveFile(from, to string, flags uint32) error {
	f, err := utf16Path(from)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	t, err := utf16Path(to)
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	if err := windows.MoveFileEx(f, t, flags|windows.MOVEFILE_WRITE_THROUGH); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// replaceFile renames from over to atomically: MoveFileEx with
// MOVEFILE_REPLACE_EXISTING|MOVEFILE_WRITE_THROUGH (ReplaceFile is not
// atomic). A read-only destination is not replaced (ERROR_ACCESS_DENIED),
// as Python's os.replace on Windows does not replace it either.
func replaceFile(from, to string) error {
	return retryBusy(func() error { return moveFile(from, to, windows.MOVEFILE_REPLACE_EXISTING) })
}

// renameNoReplace is MoveFileEx without MOVEFILE_REPLACE_EXISTING: atomic,
// and fails with ERROR_ALREADY_EXISTS rather than replacing any existing
// entry (a dangling symlink included).
func renameNoReplace(from, to string) error { return moveFile(from, to, 0) }

// publishTemp is the create-only publication step. On Windows the
// no-replace MoveFileEx is the primary step (it works on every Windows file
// system, FAT included, where hard links do not).
func publishTemp(tmp, dest string) error {
	err := renameNoReplace(tmp, dest)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist):
		return &ExistsError{Path: dest}
	case errors.Is(err, windows.ERROR_NOT_SUPPORTED) || errors.Is(err, windows.ERROR_INVALID_FUNCTION):
		return &unsupportedError{err: err}
	}
	return err
}

// SyncDir cannot fsync a directory on Windows: FlushFileBuffers needs a
// handle opened for writing, which a directory cannot be opened with
// through the Win32 API (ERROR_ACCESS_DENIED). The safe side taken instead:
// every rename and publication here is a MoveFileEx with
// MOVEFILE_WRITE_THROUGH, which returns only after the new directory entry
// is on disk, and file contents are flushed (FlushFileBuffers) before they
// are renamed into place; NTFS journals its metadata. SyncDir therefore
// does nothing and returns nil.
func SyncDir(dir string) error { return nil }

// Getwd returns the working directory (GetCurrentDirectory), which is what
// Node's process.cwd() and Python's os.getcwd() report.
func Getwd() (string, error) { return os.Getwd() }

// RealPath returns the canonical path of an existing p, with symlinks and
// junctions resolved: GetFinalPathNameByHandle, as Node's
// fs.realpathSync.native and Python's os.path.realpath do, without the
// \\?\ prefix.
func RealPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", &fs.PathError{Op: "realpath", Path: p, Err: err}
	}
	final, err := finalPath(abs)
	if err != nil {
		return "", &fs.PathError{Op: "realpath", Path: p, Err: err}
	}
	return stripVerbatim(final), nil
}

// IsLinkEntry reports whether a directory entry read from dir is a link to
// be skipped, never followed: a symbolic link, or a junction or other
// name-surrogate reparse point (os.ReadDir reports those as
// fs.ModeIrregular, so only such entries cost a second look).
func IsLinkEntry(dir string, e fs.DirEntry) bool {
	t := e.Type()
	if t&fs.ModeSymlink != 0 {
		return true
	}
	return t&fs.ModeIrregular != 0 && IsSymlink(filepath.Join(dir, e.Name()))
}

// posixErrno translates Windows error codes as libuv does
// (uv_translate_sys_error), so that messages read as Node's do on Windows.
var posixErrno = map[syscall.Errno]syscall.Errno{
	windows.ERROR_FILE_NOT_FOUND:        syscall.ENOENT,
	windows.ERROR_PATH_NOT_FOUND:        syscall.ENOENT,
	windows.ERROR_INVALID_NAME:          syscall.ENOENT,
	windows.ERROR_INVALID_DRIVE:         syscall.ENOENT,
	windows.ERROR_BAD_PATHNAME:          syscall.ENOENT,
	windows.ERROR_BAD_NETPATH:           syscall.ENOENT,
	windows.ERROR_BAD_NET_NAME:          syscall.ENOENT,
	windows.ERROR_ACCESS_DENIED:         syscall.EPERM,
	windows.ERROR_PRIVILEGE_NOT_HELD:    syscall.EPERM,
	windows.ERROR_CANT_ACCESS_FILE:      syscall.EACCES,
	windows.ERROR_ELEVATION_REQUIRED:    syscall.EACCES,
	windows.ERROR_ALREADY_EXISTS:        syscall.EEXIST,
	windows.ERROR_FILE_EXISTS:           syscall.EEXIST,
	windows.ERROR_DIRECTORY:             syscall.ENOTDIR,
	windows.ERROR_CANT_RESOLVE_FILENAME: syscall.ELOOP,
	windows.ERROR_TOO_MANY_LINKS:        syscall.EMLINK,
	windows.ERROR_NOT_SAME_DEVICE:       syscall.EXDEV,
	windows.ERROR_DISK_FULL:             syscall.ENOSPC,
	windows.ERROR_HANDLE_DISK_FULL:      syscall.ENOSPC,
	windows.ERROR_WRITE_PROTECT:         syscall.EROFS,
	windows.ERROR_SHARING_VIOLATION:     syscall.EBUSY,
	windows.ERROR_LOCK_VIOLATION:        syscall.EBUSY,
	windows.ERROR_INVALID_FUNCTION:      syscall.EISDIR,
	windows.ERROR_NOT_SUPPORTED:         syscall.ENOTSUP,
	windows.ERROR_DIR_NOT_EMPTY:         syscall.ENOTEMPTY,
	windows.ERROR_INVALID_PARAMETER:     syscall.EINVAL,
	windows.ERROR_INVALID_HANDLE:        syscall.EBADF,
}

// Errno returns the POSIX error number behind err, for messages in the
// style of Node and libuv ("ENOENT: no such file or directory"): Windows
// error codes are translated as libuv translates them; the POSIX numbers
// Go invents on Windows (syscall.ELOOP, which OpenNoFollow returns for a
// link) pass through.
func Errno(err error) (syscall.Errno, bool) {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return 0, false
	}
	if e, ok := posixErrno[errno]; ok {
		return e, true
	}
	return errno, true
}
