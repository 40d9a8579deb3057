//go:build linux && !echoes_portable

package fsx

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// sendTo sends the rest of f to w with sendfile(2) when w is an *os.File
// and returns how many bytes it sent: f's offset moves past them, so the
// caller copies what is left (nothing, or from where an error stopped it).
func (f *File) sendTo(w io.Writer) int64 {
	out, ok := w.(*os.File)
	if !ok {
		return 0
	}
	rc, err := out.SyscallConn()
	if err != nil {
		return 0
	}
	var sent int64
	_ = rc.Write(func(fd uintptr) bool {
		for {
			m, err := unix.Sendfile(int(fd), f.fd, nil, 1<<30)
			if m > 0 {
				sent += int64(m)
			}
			if err == unix.EINTR {
				continue
			}
			// End of file (0 bytes, no error), or anything else: the
			// caller's copy goes on from the offset, or reports it.
			if err != nil || m <= 0 {
				return true
			}
		}
	})
	return sent
}
