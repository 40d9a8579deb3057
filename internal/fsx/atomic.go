package fsx

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrSymlink is the sentinel matched (via errors.Is) by every *SymlinkError.
var ErrSymlink = errors.New("refusing to replace a symbolic link")

// SymlinkError is returned when a write target is itself a symbolic link
// (on Windows also a junction or any other name-surrogate reparse point).
type SymlinkError struct{ Path string }

// Error returns the reference engine's message for this condition (echoes-conformance §5 step 2).
func (e *SymlinkError) Error() string {
	return "Refusing to replace a symbolic link: " + e.Path
}

// Unwrap makes errors.Is(err, ErrSymlink) true.
func (e *SymlinkError) Unwrap() error { return ErrSymlink }

const (
	tempAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789_"
	tempRandLen  = 8
	tempAttempts = 100
	// defaultFileMode is the mode of newly created files before the umask.
	defaultFileMode fs.FileMode = 0o644
	// defaultDirMode is the mode of created parent directories before the umask.
	defaultDirMode fs.FileMode = 0o755
)

// newFileMode is the mode given to files that did not exist before: 0644
// minus the umask (Windows has no umask: 0644, which Go maps to a writable
// file).
func newFileMode() fs.FileMode { return defaultFileMode &^ processUmask() }

// randomTempSuffix returns 8 characters from [a-z0-9_], uniformly.
func randomTempSuffix() (string, error) {
	const n = len(tempAlphabet)
	limit := 256 - 256%n // reject bytes >= limit to avoid modulo bias
	out := make([]byte, 0, tempRandLen)
	buf := make([]byte, 2*tempRandLen)
	for len(out) < tempRandLen {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("read random bytes: %w", err)
		}
		for _, b := range buf {
			if int(b) >= limit {
				continue
			}
			out = append(out, tempAlphabet[int(b)%n])
			if len(out) == tempRandLen {
				break
			}
		}
	}
	return string(out), nil
}

// TempName returns a fresh temporary name for target's base name, of the form
// ".<base>.<8 random chars from [a-z0-9_]>.tmp" (echoes-conformance §5 step 3).
func TempName(base string) (string, error) {
	suffix, err := randomTempSuffix()
	if err != nil {
		return "", err
	}
	return "." + base + "." + suffix + ".tmp", nil
}

// openExclusive creates name exclusively (O_EXCL never follows a symlink,
// on Windows CREATE_NEW never opens an existing entry) with mode 0600,
// open for writing.
func openExclusive(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_CLOEXEC, 0o600)
}

// createTemp creates, exclusively and with mode 0600, a temporary file next to
// target and returns it open for writing.
func createTemp(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	var lastErr error
	for range tempAttempts {
		name, err := TempName(base)
		if err != nil {
			return nil, err
		}
		f, err := openExclusive(filepath.Join(dir, name))
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create temporary file for %s: %w", target, err)
		}
		lastErr = err
	}
	return nil, fmt.Errorf("create temporary file for %s: no free name after %d attempts: %w", target, tempAttempts, lastErr)
}

// failStep, when set (tests only), is consulted before each step of filling
// a temporary file ("write", "sync", "chmod", "close") and before the final
// "rename"/"publish"; a non-nil result makes that step fail with it. It lets
// the tests prove that no failure leaves a temporary file behind.
var failStep func(step string) error

func injected(step string) error {
	if failStep == nil {
		return nil
	}
	return failStep(step)
}

// fillTemp writes data (its parts one after the other) to f, fsyncs it,
// gives it permission bits mode (none when mode is 0) and closes it. On
// error f is closed. Errors are the os package's own (*fs.PathError with
// ops "write", "sync", "chmod", "close").
func fillTemp(f *os.File, mode fs.FileMode, data ...[]byte) error {
	err := injected("write")
	for _, part := range data {
		if err != nil {
			break
		}
		_, err = f.Write(part)
	}
	if err != nil {
		_ = f.Close()
		return err
	}
	if err = injected("sync"); err == nil {
		err = f.Sync()
	}
	if err != nil {
		_ = f.Close()
		return err
	}
	if mode != 0 {
		if err = injected("chmod"); err == nil {
			err = f.Chmod(mode)
		}
		if err != nil {
			_ = f.Close()
			return err
		}
	}
	if err = injected("close"); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// writeTemp creates a temporary file next to target holding exactly data,
// fsynced, with permission bits mode, and closed. It returns its path; on
// error the temporary file has been removed.
//
// The path is kept in a variable of its own, not in a named result: issue 11
// was `return "", err` clearing a named result before a deferred removal
// read it, which left the temporary file behind on every failed write.
func writeTemp(target string, mode fs.FileMode, data ...[]byte) (string, error) {
	f, err := createTemp(target)
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	if err := fillTemp(f, mode, data...); err != nil {
		_ = removeFile(tmp)
		var pe *fs.PathError
		op := "write"
		if errors.As(err, &pe) {
			op = pe.Op
		}
		switch op {
		case "sync":
			return "", fmt.Errorf("fsync temporary file %s: %w", tmp, err)
		case "chmod":
			return "", fmt.Errorf("chmod temporary file %s: %w", tmp, err)
		case "close":
			return "", fmt.Errorf("close temporary file %s: %w", tmp, err)
		}
		return "", fmt.Errorf("write temporary file %s: %w", tmp, err)
	}
	return tmp, nil
}

// syncDirWrapped is SyncDir with this package's error messages.
func syncDirWrapped(dir string) error {
	err := SyncDir(dir)
	var pe *fs.PathError
	if err == nil || !errors.As(err, &pe) {
		return err
	}
	if pe.Op == "open" {
		return fmt.Errorf("open directory %s for fsync: %w", dir, err)
	}
	return fmt.Errorf("fsync directory %s: %w", dir, err)
}

func mkdirParent(path string) (string, error) {
	dir := filepath.Dir(path)
	if err := MkdirAllSync(dir, defaultDirMode); err != nil {
		return "", fmt.Errorf("create parent directories of %s: %w", path, err)
	}
	return dir, nil
}

// MkdirAllSync is os.MkdirAll(dir, perm) that also fsyncs the parent of
// every directory it created, so the new entries survive a crash. Errors
// are the os package's (*fs.PathError "mkdir") or SyncDir's.
func MkdirAllSync(dir string, perm fs.FileMode) error {
	// The common case, as in os.MkdirAll: it exists (following symlinks).
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return nil
	}
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
	if err := os.MkdirAll(dir, perm); err != nil {
		return err
	}
	for _, c := range created {
		if err := SyncDir(filepath.Dir(c)); err != nil {
			return err
		}
	}
	return nil
}

// WriteFileAtomic replaces path with data atomically (echoes-conformance §5, with the Quirk's
// recommendations): it creates missing parents, refuses a symlinked target
// (on Windows also a junction), writes a 0600 temporary file in the same
// directory, fsyncs it, gives it the replaced file's permission bits (or 0644
// minus the umask for a new file), renames it over the target (Windows:
// MoveFileEx with MOVEFILE_REPLACE_EXISTING|MOVEFILE_WRITE_THROUGH) and
// fsyncs the parent directory (not possible on Windows, see SyncDir). The
// temporary file is removed on any failure.
func WriteFileAtomic(path string, data []byte) error {
	return WriteFileAtomicParts(path, data)
}

// WriteFileAtomicParts is WriteFileAtomic of the concatenation of parts,
// without making it: a cache that puts a small header before a large
// answer (freshness's rendered answers, 3.7 MB on issue 18's benchmark)
// would otherwise copy the answer into fresh memory first, a page fault
// per page of it.
func WriteFileAtomicParts(path string, parts ...[]byte) error {
	dir, err := mkdirParent(path)
	if err != nil {
		return err
	}
	mode := newFileMode()
	typ, perm, err := lstatType(path)
	switch {
	case err == nil:
		switch {
		case typ&fs.ModeSymlink != 0:
			return &SymlinkError{Path: path}
		case typ.IsDir():
			return fmt.Errorf("replace %s: %w", path, syscall.EISDIR)
		case typ.IsRegular():
			mode = perm
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return fmt.Errorf("inspect %s: %w", path, err)
	}
	tmp, err := writeTemp(path, mode, parts...)
	if err != nil {
		return err
	}
	err = injected("rename")
	if err == nil {
		err = replaceFile(tmp, path)
	}
	if err != nil {
		_ = removeFile(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return syncDirWrapped(dir)
}

// CreateFileExclusive writes a new file atomically: its content is complete
// the moment it appears. It fails with an error matching fs.ErrExist, and
// leaves the existing entry untouched, if anything (including a dangling
// symlink) already exists at path. The new file's mode is 0644 minus the umask.
// The publication step is publishTemp, shared with Publish: a hard link (or,
// without hard links, an atomic no-replace rename; on Windows a MoveFileEx
// without MOVEFILE_REPLACE_EXISTING). Where neither exists it falls back to
// an exclusive create of path itself (exclusive, but not atomic).
func CreateFileExclusive(path string, data []byte) error {
	dir, err := mkdirParent(path)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return &ExistsError{Path: path}
	}
	tmp, err := writeTemp(path, newFileMode(), data)
	if err != nil {
		return err
	}
	pubErr := injected("publish")
	if pubErr == nil {
		pubErr = publishTemp(tmp, path)
	}
	if rmErr := removeFile(tmp); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) && pubErr == nil {
		return fmt.Errorf("remove temporary file %s: %w", tmp, rmErr)
	}
	if pubErr != nil {
		var ee *ExistsError
		var ue *unsupportedError
		switch {
		case errors.As(pubErr, &ee):
			return pubErr
		case errors.As(pubErr, &ue):
			return createExclusiveDirect(path, data)
		}
		return fmt.Errorf("create %s: %w", path, pubErr)
	}
	return syncDirWrapped(dir)
}

// createExclusiveDirect writes data to a new file at path opened O_EXCL.
func createExclusiveDirect(path string, data []byte) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_CLOEXEC, defaultFileMode)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = removeFile(path)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return syncDirWrapped(filepath.Dir(path))
}
