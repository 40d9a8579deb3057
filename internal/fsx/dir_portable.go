//go:build unix && (echoes_portable || !(linux || darwin || freebsd))

package fsx

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// This file is the portable path: the same operations as dir_unix.go, on
// paths, with os package calls, for systems without openat/fstatat (and,
// with the echoes_portable build tag, on Linux too, so that this path is
// exercised by the test suite for real). Outcomes are identical as long as
// nobody renames the directory concurrently, which the design excludes
// (ecc-conformance §11.3: same-user races are out of scope).

// ReadFileBuf reads the whole file at path into buf (grown as needed) and
// returns the filled slice. Symlinks are followed, as with os.ReadFile;
// callers that must refuse them check first.
func ReadFileBuf(path string, buf []byte) ([]byte, error) {
	// O_NONBLOCK, then the type of the open file: a FIFO never blocks
	// (issue 11 item 4), anything but a regular file is ErrNotRegular.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
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
var errNotDir error = syscall.ENOTDIR

// File is a file opened for reading by OpenNoFollow, returned by value
// like the fast path's; it must not be used after Close.
type File struct{ f *os.File }

// OpenNoFollow opens path for reading without following a final symlink
// (O_NOFOLLOW: a symlink fails with ELOOP, EMLINK on FreeBSD) and without
// blocking on a FIFO or device (O_NONBLOCK), so that the caller can refuse
// anything but a regular file after File.Stat.
func OpenNoFollow(path string) (File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return File{}, err
	}
	return File{f: f}, nil
}

// Stat returns the open file's Ident (fstat).
func (f *File) Stat() (Ident, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return Ident{}, &fs.PathError{Op: "fstat", Path: f.f.Name(), Err: underlying(err)}
	}
	return identOfInfo(fi), nil
}

// Read reads up to len(p) bytes; it returns 0, io.EOF at end of file.
func (f *File) Read(p []byte) (int, error) { return f.f.Read(p) }

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// LstatIdent returns the Ident of path itself (lstat: a final symlink is
// reported, not followed).
func LstatIdent(path string) (Ident, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return Ident{}, err
	}
	return identOfInfo(fi), nil
}

func identOfInfo(fi fs.FileInfo) Ident {
	var dev, ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		dev, ino = uint64(st.Dev), uint64(st.Ino)
	}
	return newIdent(fi.Mode().Type(), fi.Size(), dev, ino)
}

func underlying(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
