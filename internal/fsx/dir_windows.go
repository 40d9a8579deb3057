//go:build windows

package fsx

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// ReadFileBuf reads the whole file at path into buf (grown as needed) and
// returns the filled slice. Symlinks are followed, as with os.ReadFile;
// callers that must refuse them check first.
func ReadFileBuf(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	if err := checkRegular(f, path); err != nil {
		return buf[:0], err
	}
	return readLoop(buf, eofAsZero(f))
}

// errNotDir is what OpenDir reports for a path that is not a directory.
var errNotDir error = windows.ERROR_DIRECTORY

// File is a file opened for reading by OpenNoFollow, returned by value
// like the POSIX fast path's; it must not be used after Close.
type File struct {
	h    windows.Handle
	name string
}

// OpenNoFollow opens path for reading without following a final link:
// CreateFile with FILE_FLAG_OPEN_REPARSE_POINT opens a symlink or junction
// itself, which is then refused with ELOOP, the error O_NOFOLLOW gives on
// Linux and macOS. Directories open (FILE_FLAG_BACKUP_SEMANTICS) and are
// refused by the caller after File.Stat, as on POSIX systems. The handle
// shares read, write and delete access, so holding it never blocks
// another process's rename or removal.
func OpenNoFollow(path string) (File, error) {
	h, err := openHandle(path, windows.GENERIC_READ, windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		return File{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	id, err := identOfHandle(h)
	if err != nil {
		windows.CloseHandle(h)
		return File{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if id.Mode&fs.ModeSymlink != 0 {
		windows.CloseHandle(h)
		return File{}, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	return File{h: h, name: path}, nil
}

// Stat returns the open file's Ident.
func (f *File) Stat() (Ident, error) {
	id, err := identOfHandle(f.h)
	if err != nil {
		return Ident{}, &fs.PathError{Op: "fstat", Path: f.name, Err: err}
	}
	return id, nil
}

// Read reads up to len(p) bytes; it returns 0, io.EOF at end of file.
func (f *File) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n uint32
	err := windows.ReadFile(f.h, p, &n, nil)
	if errors.Is(err, windows.ERROR_HANDLE_EOF) || errors.Is(err, windows.ERROR_BROKEN_PIPE) {
		return 0, io.EOF
	}
	if err != nil {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
	}
	if n == 0 {
		return 0, io.EOF
	}
	return int(n), nil
}

// Close releases the handle.
func (f *File) Close() error { return windows.CloseHandle(f.h) }

// LstatIdent returns the Ident of path itself (a final symlink or junction
// is reported as fs.ModeSymlink, not followed).
func LstatIdent(path string) (Ident, error) {
	id, err := lstatHandleIdent(path)
	if err != nil {
		return Ident{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return id, nil
}
