package fsx

import (
	"io/fs"
	"syscall"
)

// ReadFileBuf reads the whole file at path into buf (grown as needed) and
// returns the filled slice. It opens the file with plain system calls:
// os.Open registers every descriptor with the runtime poller and os.ReadFile
// allocates per file, which together cost more than the read itself when a
// command scans thousands of small pages. Symlinks are followed, as with
// os.ReadFile; callers that must refuse them check first.
func ReadFileBuf(path string, buf []byte) ([]byte, error) {
	fd, err := openRetry(path)
	if err != nil {
		return buf[:0], &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return buf[:0], &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return buf[:0], &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	if want := int(st.Size) + 1; cap(buf) < want {
		buf = make([]byte, 0, want)
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
			return buf[:0], &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

func openRetry(path string) (int, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

