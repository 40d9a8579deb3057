package fsx

import (
	"io/fs"
	"syscall"

	"golang.org/x/sys/unix"
)

// ReadFileBuf reads the whole file at path into buf (grown as needed) and
// returns the filled slice. It uses plain system calls: os.Open registers
// every descriptor with the runtime poller and os.ReadFile allocates and
// stats per file, which together cost more than the read itself when a
// command scans thousands of small pages. Symlinks are followed, as with
// os.ReadFile; callers that must refuse them check first.
func ReadFileBuf(path string, buf []byte) ([]byte, error) {
	return readAt(unix.AT_FDCWD, path, path, buf)
}

// Dir is an open directory whose files can be read by name without
// resolving the directory's path again for each one.
type Dir struct {
	fd   int
	path string
}

// OpenDir opens the directory at path for ReadFileBuf calls.
func OpenDir(path string) (*Dir, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return &Dir{fd: fd, path: path}, nil
	}
}

// Close releases the directory descriptor.
func (d *Dir) Close() error { return syscall.Close(d.fd) }

// ReadFileBuf reads the file name (a single path component) of d into buf.
func (d *Dir) ReadFileBuf(name string, buf []byte) ([]byte, error) {
	return readAt(d.fd, name, d.path+"/"+name, buf)
}

// minRead is the smallest buffer a read starts with; pages are a few KB.
const minRead = 16 << 10

func readAt(dirfd int, name, display string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return buf[:0], &fs.PathError{Op: "open", Path: display, Err: err}
	}
	defer syscall.Close(fd)
	if cap(buf) < minRead {
		buf = make([]byte, 0, minRead)
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf[:0], &fs.PathError{Op: "read", Path: display, Err: err}
		}
		buf = buf[:len(buf)+n]
		// A short read of a regular file means end of file; only a full
		// buffer needs another read to find out. Pages are regular files
		// (the listing excludes everything else).
		if n == 0 || len(buf) < cap(buf) {
			return buf, nil
		}
	}
}
