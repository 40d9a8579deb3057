//go:build (linux || darwin || freebsd) && !echoes_portable

package fsx

import (
	"io"
	"io/fs"

	"golang.org/x/sys/unix"
)

// This file is the descriptor-relative fast path. Everything goes through
// plain system calls: os.Open registers every descriptor with the runtime
// poller and os.ReadFile allocates and stats per file, which together cost
// more than the read itself when a command scans thousands of small pages;
// openat/fstatat relative to an open directory save the path walk of every
// file. The echoes_portable build (dir_portable.go) replaces it with os
// package calls on paths, the same outcomes without openat.

// ReadFileBuf reads the whole file at path into buf (grown as needed) and
// returns the filled slice. Symlinks are followed, as with os.ReadFile;
// callers that must refuse them check first. Anything but a regular file
// (a FIFO, a device, a directory) is refused with ErrNotRegular without
// blocking: the open is O_NONBLOCK and the type is checked on the open
// descriptor (issue 11 item 4).
func ReadFileBuf(path string, buf []byte) ([]byte, error) {
	return readAt(unix.AT_FDCWD, path, path, buf)
}

// Dir is an open directory whose files can be read by name without
// resolving the directory's path again for each one.
type Dir struct {
	fd   int
	path string
}

// OpenDir opens the directory at path (following symlinks) for reads by name.
func OpenDir(path string) (*Dir, error) {
	fd, err := openRetry(unix.AT_FDCWD, path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &Dir{fd: fd, path: path}, nil
}

// Close releases the directory descriptor.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// ReadFileBuf reads the file name (a single path component) of d into buf.
func (d *Dir) ReadFileBuf(name string, buf []byte) ([]byte, error) {
	return readAt(d.fd, name, d.path+"/"+name, buf)
}

// OpenNoFollow is OpenNoFollow for the file name (a single path component)
// of d.
func (d *Dir) OpenNoFollow(name string) (File, error) {
	fd, err := openRetry(d.fd, name, noFollowFlags)
	if err != nil {
		return File{}, &fs.PathError{Op: "open", Path: d.path + "/" + name, Err: err}
	}
	return File{fd: fd, dir: d.path, name: name}, nil
}

// Lstat is LstatIdent for the file name (a single path component) of d.
func (d *Dir) Lstat(name string) (Ident, error) {
	var st unix.Stat_t
	if err := retry(func() error { return unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return Ident{}, &fs.PathError{Op: "lstat", Path: d.path + "/" + name, Err: err}
	}
	return identOf(&st), nil
}

// File is a file opened for reading by OpenNoFollow, used through plain
// system calls. It is returned by value (the guarded reader's per-file path
// then allocates nothing); it must not be used after Close.
type File struct {
	fd        int
	dir, name string // the path for messages: dir + "/" + name, or name
}

const noFollowFlags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// OpenNoFollow opens path for reading without following a final symlink
// (O_NOFOLLOW: a symlink fails with ELOOP, EMLINK on FreeBSD) and without
// blocking on a FIFO or device (O_NONBLOCK), so that the caller can refuse
// anything but a regular file after File.Stat.
func OpenNoFollow(path string) (File, error) {
	fd, err := openRetry(unix.AT_FDCWD, path, noFollowFlags)
	if err != nil {
		return File{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return File{fd: fd, name: path}, nil
}

// path is the file's path for messages.
func (f *File) path() string {
	if f.dir == "" {
		return f.name
	}
	return f.dir + "/" + f.name
}

// Stat returns the open file's Ident (fstat).
func (f *File) Stat() (Ident, error) {
	var st unix.Stat_t
	if err := retry(func() error { return unix.Fstat(f.fd, &st) }); err != nil {
		return Ident{}, &fs.PathError{Op: "fstat", Path: f.path(), Err: err}
	}
	return identOf(&st), nil
}

// Read reads up to len(p) bytes; it returns 0, io.EOF at end of file.
func (f *File) Read(p []byte) (int, error) {
	var n int
	err := retry(func() error {
		var err error
		n, err = unix.Read(f.fd, p)
		return err
	})
	if err != nil {
		return 0, &fs.PathError{Op: "read", Path: f.path(), Err: err}
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// Close releases the descriptor.
func (f *File) Close() error { return unix.Close(f.fd) }

// LstatIdent returns the Ident of path itself (lstat: a final symlink is
// reported, not followed).
func LstatIdent(path string) (Ident, error) {
	var st unix.Stat_t
	if err := retry(func() error { return unix.Lstat(path, &st) }); err != nil {
		return Ident{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return identOf(&st), nil
}

func identOf(st *unix.Stat_t) Ident {
	return newIdent(identOfMode(uint32(st.Mode)), st.Size, uint64(st.Dev), uint64(st.Ino))
}

// Stamp is LstatStamp for the file name (a single path component) of d.
func (d *Dir) Stamp(name string) (Stamp, error) {
	var st unix.Stat_t
	if err := retry(func() error { return unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
		return Stamp{}, &fs.PathError{Op: "lstat", Path: d.path + "/" + name, Err: err}
	}
	return stampOf(&st), nil
}

// retry repeats a system call interrupted by a signal, as the os package does.
func retry(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

func openRetry(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func readAt(dirfd int, name, display string, buf []byte) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO without a writer would otherwise block
	// forever; on a regular file the flag changes nothing.
	fd, err := openRetry(dirfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if err != nil {
		return buf[:0], &fs.PathError{Op: "open", Path: display, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := retry(func() error { return unix.Fstat(fd, &st) }); err != nil {
		return buf[:0], &fs.PathError{Op: "fstat", Path: display, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return buf[:0], &fs.PathError{Op: "read", Path: display, Err: ErrNotRegular}
	}
	// Room for the whole file and the byte that finds its end, as
	// os.ReadFile sizes it: growing from minRead copied a large file (the
	// page cache, index.md of a large vault) several times over.
	if want := st.Size + 1; st.Size > 0 && want <= 1<<30 && int64(cap(buf)) < want {
		buf = make([]byte, 0, want)
	}
	return readLoop(buf, func(p []byte) (int, error) {
		for {
			n, err := unix.Read(fd, p)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return 0, &fs.PathError{Op: "read", Path: display, Err: err}
			}
			return n, nil
		}
	})
}
