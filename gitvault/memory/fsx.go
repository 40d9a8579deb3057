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

	"golang.org/x/sys/unix"
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

// osError wraps a failed system call with a Node-style message.
func osError(err error, op, path string) *Error {
	var errno syscall.Errno
	msg := err.Error()
	if errors.As(err, &errno) {
		if t, ok := nodeErrnoText[errno]; ok {
			msg = t[0] + ": " + t[1] + ", " + op + " '" + path + "'"
		} else {
			msg = errno.Error() + ", " + op + " '" + path + "'"
		}
	}
	return &Error{Code: CodeIO, Message: msg, Err: err}
}

// sameFile compares identities as the reference does: the inode always,
// the device only when both sides report a non-zero one.
func sameFile(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return os.SameFile(a, b)
	}
	return sameStat(sa, sb)
}

func sameStat(sa, sb *syscall.Stat_t) bool {
	if sa.Ino != sb.Ino {
		return false
	}
	if sa.Dev != 0 && sb.Dev != 0 && sa.Dev != sb.Dev {
		return false
	}
	return true
}

// isRegularStat is os.FileMode.IsRegular for a raw stat.
func isRegularStat(st *syscall.Stat_t) bool { return st.Mode&syscall.S_IFMT == syscall.S_IFREG }

// retryEINTR repeats a system call interrupted by a signal, as the os
// package does.
func retryEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}

// readGuarded is the reference's guarded reader (CONFORMANCE §11.3): no
// symlinks, no FIFOs (O_NONBLOCK keeps the open from blocking), identity
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
// through its directory, and a symlink fails the O_NOFOLLOW open anyway.
//
// The descriptor is used through raw system calls: os.NewFile on an
// O_NONBLOCK descriptor costs an fcntl and a poller registration, and a
// buffer sized from fstat avoids io.ReadAll's repeated small reads.
// Error messages and codes are those of the os-package version.
func readGuardedCheck(path, label string, limit int64, trustedRoot string, inside func() bool) (string, error) {
	return readGuardedVia(path, label, limit, trustedRoot, inside,
		func() (int, error) {
			return syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		},
		func() (fileID, error) {
			var st syscall.Stat_t
			if err := retryEINTR(func() error { return syscall.Lstat(path, &st) }); err != nil {
				return fileID{}, err
			}
			return idOfStat(&st), nil
		})
}

// readGuardedAt is readGuardedCheck for the scan, with the open and the
// lstat done relative to dirfd, an open descriptor of path's directory
// (name is path's last element). Without concurrent renames the two name
// the same file, so every outcome is the path-based one; the path walk of
// two system calls per file is saved.
func readGuardedAt(dirfd int, name, path, label string, limit int64, trustedRoot string, inside func() bool) (string, error) {
	return readGuardedVia(path, label, limit, trustedRoot, inside,
		func() (int, error) {
			return syscall.Openat(dirfd, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		},
		func() (fileID, error) {
			var st unix.Stat_t
			if err := retryEINTR(func() error { return unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) }); err != nil {
				return fileID{}, err
			}
			return fileID{regular: st.Mode&unix.S_IFMT == unix.S_IFREG, ino: uint64(st.Ino), dev: uint64(st.Dev)}, nil
		})
}

// fileID is what the identity check compares.
type fileID struct {
	regular  bool
	ino, dev uint64
}

func idOfStat(st *syscall.Stat_t) fileID {
	return fileID{regular: isRegularStat(st), ino: uint64(st.Ino), dev: uint64(st.Dev)}
}

// same is sameStat on fileIDs: the inode always, the device only when both
// are non-zero.
func (a fileID) same(b fileID) bool {
	return a.ino == b.ino && (a.dev == 0 || b.dev == 0 || a.dev == b.dev)
}

// readGuardedVia is the guarded reader with its open and lstat steps given.
func readGuardedVia(path, label string, limit int64, trustedRoot string, inside func() bool,
	open func() (int, error), lstat func() (fileID, error)) (string, error) {
	outside := func() error {
		return newErr(CodeUnsafePath, "Refusing to read memory outside the install root: '"+path+"' is not within '"+trustedRoot+"'.")
	}
	if inside != nil && !inside() {
		return "", outside()
	}
	fd, err := open()
	if err != nil {
		return "", osError(err, "open", path)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := retryEINTR(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		return "", osError(&fs.PathError{Op: "stat", Path: path, Err: err}, "fstat", path)
	}
	if !isRegularStat(&st) {
		return "", newErr(CodeUnsafePath, label+" must be a regular, non-symlink file.")
	}
	if lid, err := lstat(); err != nil || !lid.regular || !idOfStat(&st).same(lid) {
		var perr error
		if err != nil {
			perr = &fs.PathError{Op: "lstat", Path: path, Err: err}
		}
		return "", &Error{Code: CodeUnsafePath, Message: label + " must remain a regular, non-symlink file while it is opened.", Err: perr}
	}
	if inside != nil && !inside() {
		return "", outside()
	}
	if st.Size > limit {
		return "", newErr(CodeInvalid, label+" is too large ("+strconv.FormatInt(st.Size, 10)+" bytes).")
	}
	raw, err := readFDCapped(fd, limit, st.Size)
	if err != nil {
		if errors.Is(err, errTooLarge) {
			return "", newErr(CodeInvalid, label+" is too large (maximum "+strconv.FormatInt(limit, 10)+" bytes).")
		}
		return "", osError(&fs.PathError{Op: "read", Path: path, Err: err}, "read", path)
	}
	text, ok := decodeOwned(raw)
	if !ok {
		return "", newErr(CodeInvalid, label+" must contain valid UTF-8 text.")
	}
	return text, nil
}

// decodeOwned is DecodeText for a buffer the caller never touches again:
// the string shares its bytes instead of copying them.
func decodeOwned(raw []byte) (string, bool) {
	if !utf8.Valid(raw) {
		return "", false
	}
	return strings.TrimPrefix(unsafe.String(unsafe.SliceData(raw), len(raw)), "\uFEFF"), true
}

// readFDCapped is readCapped on a raw descriptor: it reads to EOF or until
// limit+1 bytes have arrived, starting with a buffer for the fstat size
// plus one byte so that a file that did not change needs one read for its
// bytes and one to see EOF.
func readFDCapped(fd int, limit, size int64) ([]byte, error) {
	most := int(limit) + 1
	buf := make([]byte, 0, min(int(max(size, 0))+1, most))
	for len(buf) < most {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), most-len(buf)))
		}
		var n int
		err := retryEINTR(func() error {
			var err error
			n, err = syscall.Read(fd, buf[len(buf):min(cap(buf), most)])
			return err
		})
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
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
// there (CONFORMANCE §9.1): an exclusive temporary file in the same
// directory, identity checks, fsync, then a hard link (which fails on any
// existing entry, even a dangling symlink) and a directory fsync.
func publishCreateOnly(root, dest string, content []byte) error {
	if !within(dest, root) {
		return newErr(CodeUnsafePath, "Refusing to write memory outside the install root: '"+dest+"' is not within '"+root+"'.")
	}
	dir := filepath.Dir(dest)
	u, err := uuidV4()
	if err != nil {
		return &Error{Code: CodeIO, Message: "cannot generate a temporary name: " + err.Error(), Err: err}
	}
	tmp := filepath.Join(dir, ".ecc-memory-"+strconv.Itoa(os.Getpid())+"-"+u[0:8]+"-"+u[8:12]+"-"+u[12:16]+"-"+u[16:20]+"-"+u[20:]+".tmp")
	fd, err := syscall.Open(tmp, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return osError(err, "open", tmp)
	}
	// The temporary name is ours alone; remove it whatever happens, the
	// published hard link (if any) keeps the content.
	defer os.Remove(tmp)
	f := os.NewFile(uintptr(fd), tmp)
	changed := newErr(CodeUnsafePath, "Memory destination changed while it was being created.")
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return osError(err, "fstat", tmp)
	}
	li, lerr := os.Lstat(tmp)
	if lerr != nil || !fi.Mode().IsRegular() || !li.Mode().IsRegular() || !sameFile(fi, li) || !within(tmp, root) {
		f.Close()
		return changed
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return osError(err, "write", tmp)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return osError(err, "fsync", tmp)
	}
	if err := f.Close(); err != nil {
		return osError(err, "close", tmp)
	}
	if !within(dest, root) {
		return newErr(CodeUnsafePath, "Refusing to write memory outside the install root: '"+dest+"' is not within '"+root+"'.")
	}
	if err := os.Link(tmp, dest); err != nil {
		if errors.Is(err, os.ErrExist) {
			return errDestinationExists
		}
		if !linkUnsupported(err) {
			return osError(unwrapLink(err), "link", tmp+"' -> '"+dest)
		}
		// Filesystems without hard links: an atomic no-replace rename keeps
		// the create-only guarantee; writing dest directly never would.
		if rerr := renameNoReplace(tmp, dest); rerr != nil {
			if errors.Is(rerr, os.ErrExist) {
				return errDestinationExists
			}
			return osError(rerr, "rename", tmp+"' -> '"+dest)
		}
	}
	return syncDir(dir)
}

func unwrapLink(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

func linkUnsupported(err error) bool {
	e := unwrapLink(err)
	return errors.Is(e, syscall.EPERM) || errors.Is(e, syscall.ENOTSUP) || errors.Is(e, syscall.EOPNOTSUPP) || errors.Is(e, syscall.ENOSYS)
}

// syncDir makes a new directory entry durable; the reference omits it and
// can lose a saved memory on a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return osError(err, "open", dir)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return osError(err, "fsync", dir)
	}
	return nil
}

// mkdirAll creates dir and its parents with mode 0700 and fsyncs the
// parent of every directory it created.
func mkdirAll(dir string) error {
	var created []string
	for cur := dir; ; {
		if _, err := os.Lstat(cur); err == nil {
			break
		}
		created = append(created, cur)
		parent := filepath.Dir(cur)
		if parent == cur {
			break
		}
		cur = parent
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return osError(pe.Err, "mkdir", pe.Path)
		}
		return &Error{Code: CodeIO, Message: err.Error(), Err: err}
	}
	for _, c := range created {
		if err := syncDir(filepath.Dir(c)); err != nil {
			return err
		}
	}
	return nil
}
