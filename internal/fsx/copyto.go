package fsx

import "io"

// CopyTo copies the rest of f, from its offset, to w and returns the
// number of bytes copied. On Linux, where w is an *os.File (a command's
// stdout), the bytes go by sendfile(2), file to file inside the kernel:
// the 3.7 MB of a cached git echoes stale answer read into the process
// and written out again were a third of a warm run's own work (issue
// 18, warm). Whatever sendfile does not take (another system, another
// writer, a destination it refuses, a pipe that would block, any error)
// is copied through buf from where it stopped, which reports write
// errors as a plain copy does.
func (f *File) CopyTo(w io.Writer, buf []byte) (int64, error) {
	sent := f.sendTo(w)
	n, err := io.CopyBuffer(w, onlyReader{f}, buf)
	return sent + n, err
}

// onlyReader hides everything but Read, so that io.CopyBuffer uses its
// buffer.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }
