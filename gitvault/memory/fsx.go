package memory

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"
	"unsafe"

	"github.com/git-echoes/git-echoes/internal/fsx"
)

// nodeErrnoText holds libuv's descriptions, so raw OS errors read like the
// reference's ("ELOOP: too many symbolic links encountered, open '<p>'").
var nodeErrnoText = map[syscall.Errno][2]string{
	syscall.ENOENT:  {"ENOENT", "no such file or directory"},
	syscall.ELOOP:   {"ELOOP", "too many symbolic links encountered"},
	syscall.EACCES:  {"EACCES", "permission denied"},
	syscall.EPERM:   {"EPERM", "operation not permitted"},
	syscall.ENOTDIR: {"ENOTDIR", "not a directory"},
	syscall.EISDIR:  {"EISDIR", "illegal operation on a directory"},
	syscall.EEXIST:  {"EEXIST", "file already exists"},
	syscall.ENXIO:   {"ENXIO", "no such device or address"},
	syscall.EMLINK:  {"EMLINK", "too many links"},
	syscall.EXDEV:   {"EXDEV", "cross-device link not permitted"},
	syscall.ENOSPC:  {"ENOSPC", "no space left on device"},
	syscall.EROFS:   {"EROFS", "read-only file system"},
}

// osError wraps a failed system call with a Node-style message. fsx.Errno
// gives the POSIX number behind err (on Windows translated as libuv does),
// so the wording is the same on every OS.
func osError(err error, op, path string) *Error {
	msg := err.Error()
	if errno, ok := fsx.Errno(err); ok {
		if t, ok := nodeErrnoText[errno]; ok {
			msg = t[0] + ": " + t[1] + ", " + op + " '" + path + "'"
		} else {
			msg = errno.Error() + ", " + op + " '" + path + "'"
		}
	}
	return &Error{Code: CodeIO, Message: msg, Err: err}
}

// nodeOp names the system call of an os-package operation as Node's
// messages do.
func nodeOp(op string) string {
	switch op {
	case "sync":
		return "fsync"
	case "stat":
		return "fstat"
	}
	return op
}

// fsError words an error of an fsx write primitive (the os package's
// *fs.PathError and *os.LinkError) as the reference does.
func fsError(err error) *Error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return osError(le.Err, le.Op, le.Old+"' -> '"+le.New)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return osError(pe.Err, nodeOp(pe.Op), pe.Path)
	}
	return &Error{Code: CodeIO, Message: err.Error(), Err: err}
}

// readGuarded is the reference's guarded reader (ecc-conformance §11.3): no
// symlinks, no FIFOs (the no-follow open does not block on them), identity
// re-checked after open, containment re-checked, size capped, fatal UTF-8
// decoding with one BOM removed. trustedRoot may be empty.
func readGuarded(path, label string, limit int64, trustedRoot string) (string, error) {
	return readGuardedWith(nil, path, label, limit, trustedRoot)
}

// readGuardedWith is readGuarded with a scan's realpath cache.
func readGuardedWith(rs *resolver, path, label string, limit int64, trustedRoot string) (string, error) {
	var inside func() bool
	if trustedRoot != "" {
		inside = func() bool { return rs.within(path, trustedRoot) }
	}
	return readGuardedCheck(path, label, limit, trustedRoot, inside)
}

// readGuardedCheck is the guarded reader with the containment test given
// as inside (nil: no trusted root). It is called before the open and again
// after the identity check. The scan passes a test that reuses the
// directory's cached realpath (resolver.fileWithin); that is exact here,
// because a path that is missing or a regular non-symlink file resolves
// through its directory, and a symlink fails the no-follow open anyway.
//
// The open, fstat and lstat are fsx's (fsx.OpenNoFollow, File.Stat,
// fsx.LstatIdent): plain system calls on the fast path, and a buffer sized
// from fstat avoids io.ReadAll's repeated small reads. Error messages and
// codes are those of the os-package version.
func readGuardedCheck(path, label string, limit int64, trustedRoot string, inside func() bool) (string, error) {
	return readGuardedVia(path, label, limit, trustedRoot, inside,
		func() (fsx.File, error) { return fsx.OpenNoFollow(path) },
		func() (fsx.Ident, error) { return fsx.LstatIdent(path) })
}

// readGuardedAt is readGuardedCheck for the scan, with the open and the
// lstat done relative to dir, the open directory of path (name is path's
// last element). Without concurrent renames the two name the same file, so
// every outcome is the path-based one; the path walk of two system calls
// per file is saved where fsx has descriptor-relative calls.
func readGuardedAt(dir *fsx.Dir, name, path, label string, limit int64, trustedRoot string, inside func() bool) (string, error) {
	return readGuardedVia(path, label, limit, trustedRoot, inside,
		func() (fsx.File, error) { return dir.OpenNoFollow(name) },
		func() (fsx.Ident, error) { return dir.Lstat(name) })
}

// readGuardedVia is the guarded reader with its open and lstat steps given.
func readGuardedVia(path, label string, limit int64, trustedRoot string, inside func() bool,
	open func() (fsx.File, error), lstat func() (fsx.Ident, error)) (string, error) {
	outside := func() error {
		return newErr(CodeUnsafePath, "Refusing to read memory outside the install root: '"+path+"' is not within '"+trustedRoot+"'.")
	}
	if inside != nil && !inside() {
		return "", outside()
	}
	f, err := open()
	if err != nil {
		return "", osError(err, "open", path)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", osError(err, "fstat", path)
	}
	if !st.IsRegular() {
		return "", newErr(CodeUnsafePath, label+" must be a regular, non-symlink file.")
	}
	if lid, err := lstat(); err != nil || !lid.IsRegular() || !st.SameFile(lid) {
		return "", &Error{Code: CodeUnsafePath, Message: label + " must remain a regular, non-symlink file while it is opened.", Err: err}
	}
	if inside != nil && !inside() {
		return "", outside()
	}
	if st.Size > limit {
		return "", newErr(CodeInvalid, label+" is too large ("+strconv.FormatInt(st.Size, 10)+" bytes).")
	}
	raw, err := readFileCapped(&f, limit, st.Size)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return "", newErr(CodeInvalid, label+" is too large (maximum "+strconv.FormatInt(limit, 10)+" bytes).")
		}
		return "", osError(err, "read", path)
	}
	text, ok := decodeOwned(raw)
	if !ok {
		return "", newErr(CodeInvalid, label+" must contain valid UTF-8 text.")
	}
	return text, nil
}

// decodeOwned is DecodeUTF8Fatal for a buffer the caller never touches again:
// the string shares its bytes instead of copying them.
func decodeOwned(raw []byte) (string, bool) {
	if !utf8.Valid(raw) {
		return "", false
	}
	return strings.TrimPrefix(unsafe.String(unsafe.SliceData(raw), len(raw)), "\uFEFF"), true
}

// readFileCapped is readCapped on a guarded file: it reads to EOF or until
// limit+1 bytes have arrived, starting with a buffer for the fstat size
// plus one byte so that a file that did not change needs one read for its
// bytes and one to see EOF.
func readFileCapped(f *fsx.File, limit, size int64) ([]byte, error) {
	most := int(limit) + 1
	buf := make([]byte, 0, min(int(max(size, 0))+1, most))
	for len(buf) < most {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), most-len(buf)))
		}
		n, err := f.Read(buf[len(buf):min(cap(buf), most)])
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		buf = buf[:len(buf)+n]
	}
	if len(buf) > int(limit) {
		return nil, errTooLarge
	}
	return buf, nil
}

var errTooLarge = errors.New("input exceeds its size cap")

// readCapped reads r to EOF, failing with errTooLarge past limit bytes.
func readCapped(r io.Reader, limit int64) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(raw)) > limit {
		return nil, errTooLarge
	}
	return raw, nil
}

// uuidV4 returns a random RFC 4122 version 4 UUID without hyphens, which
// is how the reference derives ids and temporary names.
func uuidV4() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	b[6] = b[6]&0x0F | 0x40
	b[8] = b[8]&0x3F | 0x80
	return hex.EncodeToString(b[:]), nil
}

// errDestinationExists reports EEXIST from the final publication step.
var errDestinationExists = errors.New("destination exists")

// publishCreateOnly writes content to dest without ever replacing anything
// there (ecc-conformance §9.1) with fsx.Publish: an exclusive temporary file in
// the same directory, identity checks, fsync, then a create-only
// publication (a hard link, which fails on any existing entry, even a
// dangling symlink; without hard links an atomic no-replace rename, never a
// write of the final name) and a directory fsync (the reference omits it
// and can lose a saved memory on a crash). Containment is checked before,
// after the temporary file is created, and right before publication.
func publishCreateOnly(root, dest string, content []byte) error {
	escape := func() error {
		return newErr(CodeUnsafePath, "Refusing to write memory outside the install root: '"+dest+"' is not within '"+root+"'.")
	}
	if !within(dest, root) {
		return escape()
	}
	u, err := uuidV4()
	if err != nil {
		return &Error{Code: CodeIO, Message: "cannot generate a temporary name: " + err.Error(), Err: err}
	}
	tmp := filepath.Join(filepath.Dir(dest), ".ecc-memory-"+strconv.Itoa(os.Getpid())+"-"+u[0:8]+"-"+u[8:12]+"-"+u[12:16]+"-"+u[16:20]+"-"+u[20:]+".tmp")
	err = fsx.Publish(dest, content, fsx.PublishOptions{
		Temp: tmp,
		Created: func() error {
			if !within(tmp, root) {
				return fsx.ErrChanged
			}
			return nil
		},
		BeforePublish: func() error {
			if !within(dest, root) {
				return escape()
			}
			return nil
		},
	})
	var ee *fsx.ExistsError
	var me *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return errDestinationExists
	case errors.Is(err, fsx.ErrChanged):
		return newErr(CodeUnsafePath, "Memory destination changed while it was being created.")
	case errors.As(err, &me):
		return me
	}
	return fsError(err)
}

// mkdirAll creates dir and its parents with mode 0700 and fsyncs the
// parent of every directory it created.
func mkdirAll(dir string) error {
	if err := fsx.MkdirAllSync(dir, 0o700); err != nil {
		return fsError(err)
	}
	return nil
}
