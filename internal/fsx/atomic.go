package fsx

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ErrSymlink is the sentinel matched (via errors.Is) by every *SymlinkError.
var ErrSymlink = errors.New("refusing to replace a symbolic link")

// SymlinkError is returned when a write target is itself a symbolic link.
type SymlinkError struct{ Path string }

// Error returns the reference engine's message for this condition (§5 step 2).
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

var (
	umaskOnce  sync.Once
	umaskValue fs.FileMode
)

// processUmask returns the process umask, read once from /proc/self/status
// (which, unlike syscall.Umask, does not modify process-global state), with a
// fallback of 0022 when it cannot be read.
func processUmask() fs.FileMode {
	umaskOnce.Do(func() {
		umaskValue = 0o022
		if m, ok := readProcUmask("/proc/self/status"); ok {
			umaskValue = m
		}
	})
	return umaskValue
}

func readProcUmask(statusPath string) (fs.FileMode, bool) {
	f, err := os.Open(statusPath)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, "Umask:")
		if !ok {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(rest), 8, 32)
		if err != nil {
			return 0, false
		}
		return fs.FileMode(v) & fs.ModePerm, true
	}
	return 0, false
}

// newFileMode is the mode given to files that did not exist before.
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
// ".<base>.<8 random chars from [a-z0-9_]>.tmp" (§5 step 3).
func TempName(base string) (string, error) {
	suffix, err := randomTempSuffix()
	if err != nil {
		return "", err
	}
	return "." + base + "." + suffix + ".tmp", nil
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
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_CLOEXEC, 0o600)
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

// writeTemp creates a temporary file next to target holding exactly data,
// fsynced, with permission bits mode, and closed. It returns its path; on
// error the temporary file has been removed.
func writeTemp(target string, data []byte, mode fs.FileMode) (tmp string, err error) {
	f, err := createTemp(target)
	if err != nil {
		return "", err
	}
	tmp = f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return "", fmt.Errorf("write temporary file %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		return "", fmt.Errorf("fsync temporary file %s: %w", tmp, err)
	}
	if err = f.Chmod(mode); err != nil {
		return "", fmt.Errorf("chmod temporary file %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return "", fmt.Errorf("close temporary file %s: %w", tmp, err)
	}
	return tmp, nil
}

// syncDir fsyncs a directory so a rename or link in it is durable. File
// systems that cannot fsync directories (EINVAL, ENOTSUP) are tolerated.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory %s for fsync: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) || errors.Is(err, syscall.EBADF) {
			return nil
		}
		return fmt.Errorf("fsync directory %s: %w", dir, err)
	}
	return nil
}

func mkdirParent(path string) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, defaultDirMode); err != nil {
		return "", fmt.Errorf("create parent directories of %s: %w", path, err)
	}
	return dir, nil
}

// WriteFileAtomic replaces path with data atomically (§5, with the Quirk's
// recommendations): it creates missing parents, refuses a symlinked target,
// writes a 0600 temporary file in the same directory, fsyncs it, gives it the
// replaced file's permission bits (or 0644 minus the umask for a new file),
// renames it over the target and fsyncs the parent directory. The temporary
// file is removed on any failure.
func WriteFileAtomic(path string, data []byte) error {
	dir, err := mkdirParent(path)
	if err != nil {
		return err
	}
	mode := newFileMode()
	fi, err := os.Lstat(path)
	switch {
	case err == nil:
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			return &SymlinkError{Path: path}
		case fi.IsDir():
			return fmt.Errorf("replace %s: %w", path, syscall.EISDIR)
		case fi.Mode().IsRegular():
			mode = fi.Mode().Perm()
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return fmt.Errorf("inspect %s: %w", path, err)
	}
	tmp, err := writeTemp(path, data, mode)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return syncDir(dir)
}

// CreateFileExclusive writes a new file atomically: its content is complete
// the moment it appears. It fails with an error matching fs.ErrExist, and
// leaves the existing entry untouched, if anything (including a dangling
// symlink) already exists at path. The new file's mode is 0644 minus the umask.
func CreateFileExclusive(path string, data []byte) error {
	dir, err := mkdirParent(path)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("create %s: %w", path, fs.ErrExist)
	}
	tmp, err := writeTemp(path, data, newFileMode())
	if err != nil {
		return err
	}
	linkErr := os.Link(tmp, path)
	if rmErr := os.Remove(tmp); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) && linkErr == nil {
		return fmt.Errorf("remove temporary file %s: %w", tmp, rmErr)
	}
	if linkErr != nil {
		if errors.Is(linkErr, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", path, fs.ErrExist)
		}
		if errors.Is(linkErr, syscall.EPERM) || errors.Is(linkErr, syscall.ENOTSUP) || errors.Is(linkErr, syscall.ENOSYS) {
			// The file system has no hard links: fall back to an exclusive
			// create of the target itself (exclusive but not atomic).
			return createExclusiveDirect(path, data)
		}
		return fmt.Errorf("create %s: %w", path, linkErr)
	}
	return syncDir(dir)
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
			_ = os.Remove(path)
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
	return syncDir(filepath.Dir(path))
}
