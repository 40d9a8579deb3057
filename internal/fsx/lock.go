package fsx

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/git-echoes/git-echoes/internal/pytext"
)

// ErrLockBusy means the shared lock is held by another writer (acquisition
// timed out) or is no longer ours (taken over).
var ErrLockBusy = errors.New("lock busy")

// LockNotFileError means that something other than a regular file (a
// directory, a FIFO, a socket, a device) occupies the lock's path: no writer
// can ever create the lock there, and waiting would never end (issue 11
// items 3 and 4), so acquisition fails at once and names what is in the way.
type LockNotFileError struct {
	Path string
	Mode fs.FileMode // the type bits of what is there (symlinks followed)
}

func (e *LockNotFileError) Error() string {
	return "lock " + e.Path + " is " + DescribeType(e.Mode) + ", not a lock file"
}

// DescribeType names the file type of m for messages: "a directory",
// "a FIFO (named pipe)", "a socket", "a device", "a symbolic link",
// "a regular file" or "not a regular file".
func DescribeType(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// checkLockType fails with *LockNotFileError when the existing entry at path
// is, following symlinks as the reference's stat does (echoes-conformance §6), not a regular
// file. A failed stat (vanished meanwhile, a dangling symlink) passes: the
// echoes-conformance §6 loop decides as before.
func checkLockType(path string) error {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil
	}
	return &LockNotFileError{Path: path, Mode: fi.Mode().Type()}
}

// LockOptions tunes AcquireLock. Zero fields take the defaults.
type LockOptions struct {
	Wait    time.Duration // total time to wait for a live lock (8s)
	Poll    time.Duration // sleep between attempts (50ms)
	Stale   time.Duration // a lock whose mtime is older than this is stale (60s)
	Refresh time.Duration // mtime refresh period while held (15s); negative disables
}

// DefaultLockOptions returns the reference engine's timings (echoes-conformance §6) plus the
// recommended 15 s refresh.
func DefaultLockOptions() LockOptions {
	return LockOptions{Wait: 8 * time.Second, Poll: 50 * time.Millisecond, Stale: 60 * time.Second, Refresh: 15 * time.Second}
}

func (o LockOptions) withDefaults() LockOptions {
	d := DefaultLockOptions()
	if o.Wait <= 0 {
		o.Wait = d.Wait
	}
	if o.Poll <= 0 {
		o.Poll = d.Poll
	}
	if o.Stale <= 0 {
		o.Stale = d.Stale
	}
	if o.Refresh == 0 {
		o.Refresh = d.Refresh
	}
	return o
}

// Lock is a held .echoes-vault/lock (echoes-conformance §6).
type Lock struct {
	path  string
	token string

	mu       sync.Mutex // serializes refreshes with Release
	guard    sync.Mutex // held by Guard's durable writes; Release waits for it
	released bool
	stop     chan struct{}
	done     chan struct{}
	relOnce  sync.Once
	relErr   error
}

// NewLockToken returns "<pid>-<16 lowercase hex chars from 8 random bytes>".
func NewLockToken() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("lock token: read random bytes: %w", err)
	}
	return strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:]), nil
}

// AcquireLock takes the shared lock at path following echoes-conformance §6 exactly, with the
// Quirk recommendations: a stale lock is unlinked only if its content and
// mtime are unchanged since the staleness decision, and the held lock's mtime
// is refreshed every opt.Refresh while it still holds our token.
func AcquireLock(path string, opt LockOptions) (*Lock, error) {
	opt = opt.withDefaults()
	if err := os.MkdirAll(filepath.Dir(path), defaultDirMode); err != nil {
		return nil, fmt.Errorf("acquire lock %s: create directory: %w", path, err)
	}
	token, err := NewLockToken()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	deadline := start.Add(opt.Wait) // time.Now carries a monotonic reading
	for {
		// The creation and the registration are one step for ReleaseHeld
		// (held's mutex is taken across both): a SIGTERM handled between
		// them would otherwise exit 143 leaving a lock nobody releases,
		// blocking every writer for 60 s (issue 17: TestCrashKilledWriters
		// under load, where the window is widest).
		held.Lock()
		created, err := tryCreateLock(path, token)
		if err != nil {
			held.Unlock()
			return nil, err
		}
		if created {
			l := &Lock{path: path, token: token}
			if afterLockCreate != nil {
				afterLockCreate(path)
			}
			held.locks[l] = struct{}{}
			held.Unlock()
			l.startRefresher(opt.Refresh)
			return l, nil
		}
		held.Unlock()
		if err := checkLockType(path); err != nil {
			return nil, err
		}
		removed, err := removeIfStale(path, opt.Stale)
		if err != nil {
			return nil, err
		}
		if removed {
			continue // retry immediately, without sleeping or checking the deadline
		}
		if !time.Now().Before(deadline) {
			return nil, fmt.Errorf("acquire lock %s: still held after waiting %s: %w", path, opt.Wait, ErrLockBusy)
		}
		time.Sleep(opt.Poll)
	}
}

// tryCreateLock attempts the O_CREAT|O_EXCL creation; it reports false when the
// lock already exists.
func tryCreateLock(path, token string) (bool, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) || lockCreateBusy(path, err) {
			return false, nil
		}
		return false, fmt.Errorf("acquire lock %s: %w", path, err)
	}
	_, werr := f.Write([]byte(token + "\n"))
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = removeLockFile(path)
		return false, fmt.Errorf("acquire lock %s: write token: %w", path, werr)
	}
	return true, nil
}

// afterLockCreate, when set (tests only), runs between the lock file's
// creation and its registration for ReleaseHeld.
var afterLockCreate func(path string)

// beforeStaleRecheck, when set (tests only), runs between the staleness
// decision and the re-check that precedes unlinking a stale lock.
var beforeStaleRecheck func(path string)

// lockSnapshot is what the staleness decision was based on.
type lockSnapshot struct {
	mtime   time.Time
	content []byte
}

func snapshotLock(path string) (lockSnapshot, bool) {
	fi, err := os.Stat(path) // follows symlinks, like the reference
	if err != nil {
		return lockSnapshot{}, false
	}
	content, err := readLockFile(path)
	if err != nil {
		return lockSnapshot{}, false
	}
	return lockSnapshot{mtime: fi.ModTime(), content: content}, true
}

// removeIfStale unlinks the lock at path when it is stale and unchanged
// between the staleness decision and the unlink. It reports whether the
// caller should retry immediately (the lock was judged stale).
func removeIfStale(path string, stale time.Duration) (bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, nil // a failed stat means not stale
	}
	if time.Since(fi.ModTime()) <= stale {
		return false, nil
	}
	// Staleness decision: remember what we judged stale.
	content, err := readLockFile(path)
	if err != nil {
		// Vanished (or unreadable) between stat and read: let the retry decide.
		return errors.Is(err, fs.ErrNotExist), nil
	}
	decided := lockSnapshot{mtime: fi.ModTime(), content: content}
	if beforeStaleRecheck != nil {
		beforeStaleRecheck(path)
	}
	// Right before unlinking, re-read both and unlink only if unchanged.
	now, ok := snapshotLock(path)
	if !ok || !now.mtime.Equal(decided.mtime) || !bytes.Equal(now.content, decided.content) {
		return true, nil // changed: someone else took it; re-evaluate
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		if lockInUse(err) {
			// Windows: another process has the file open without
			// FILE_SHARE_DELETE (the reference engine reading it). Not
			// removed; wait and re-evaluate like a live lock.
			return false, nil
		}
		return false, fmt.Errorf("remove stale lock %s: %w", path, err)
	}
	return true, nil
}

// Path returns the lock file's path.
func (l *Lock) Path() string { return l.path }

// Token returns this holder's ownership token (without the newline).
func (l *Lock) Token() string { return l.token }

// ownsFile reports whether the lock file currently holds our token.
func (l *Lock) ownsFile() (bool, error) {
	b, err := readLockFile(l.path)
	if err != nil {
		return false, err
	}
	return pytext.Strip(string(b)) == l.token, nil
}

// Verify returns an error matching ErrLockBusy unless the lock file still
// holds our token. Writers call it before each durable write.
func (l *Lock) Verify() error {
	l.mu.Lock()
	released := l.released
	l.mu.Unlock()
	if released {
		return fmt.Errorf("lock %s: already released: %w", l.path, ErrLockBusy)
	}
	owns, err := l.ownsFile()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("lock %s: removed by another process: %w", l.path, ErrLockBusy)
		}
		return fmt.Errorf("lock %s: cannot verify ownership: %v: %w", l.path, err, ErrLockBusy)
	}
	if !owns {
		return fmt.Errorf("lock %s: taken over by another process: %w", l.path, ErrLockBusy)
	}
	return nil
}

// Guard runs fn, a durable write, after Verify and excluding Release: a
// release from another goroutine (ReleaseHeld in a signal handler) waits
// until fn returns, and once released, Guard fails without running fn.
// A Verify failure matches ErrLockBusy; fn's error is returned as is.
func (l *Lock) Guard(fn func() error) error {
	l.guard.Lock()
	defer l.guard.Unlock()
	if err := l.Verify(); err != nil {
		return err
	}
	return fn()
}

// held are the locks this process holds, for ReleaseHeld.
var held = struct {
	sync.Mutex
	locks map[*Lock]struct{}
}{locks: map[*Lock]struct{}{}}

func unregisterHeld(l *Lock) {
	held.Lock()
	delete(held.locks, l)
	held.Unlock()
}

// ReleaseHeld releases every lock this process still holds (Release: only
// a lock file that still holds our token is removed) and returns the first
// error. It is for a process about to exit on SIGINT or SIGTERM (issue 11
// item 2), so that a killed writer does not block every other writer until
// its lock is stale (echoes-conformance §6). A write in progress finishes
// first; later writes of the released locks fail with ErrLockBusy.
func ReleaseHeld() error {
	held.Lock()
	locks := make([]*Lock, 0, len(held.locks))
	for l := range held.locks {
		locks = append(locks, l)
	}
	held.Unlock()
	var first error
	for _, l := range locks {
		if err := l.Release(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (l *Lock) startRefresher(every time.Duration) {
	if every <= 0 {
		return
	}
	l.stop = make(chan struct{})
	l.done = make(chan struct{})
	go func() {
		defer close(l.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
				l.refresh()
			}
		}
	}()
}

// refresh touches the lock file if it still holds our token.
func (l *Lock) refresh() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return
	}
	if owns, err := l.ownsFile(); err != nil || !owns {
		return
	}
	_ = touchLockFile(l.path, time.Now())
}

// Release stops the refresher and unlinks the lock file if it still holds our
// token (ENOENT ignored); a lock taken over by someone else is left alone.
// It is idempotent.
func (l *Lock) Release() error {
	l.relOnce.Do(func() {
		// Wait for a durable write in progress (Guard): a release from a
		// signal handler then never lets a write land after the unlink.
		l.guard.Lock()
		defer l.guard.Unlock()
		defer unregisterHeld(l)
		if l.stop != nil {
			close(l.stop)
			<-l.done
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.released = true
		owns, err := l.ownsFile()
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				l.relErr = fmt.Errorf("release lock %s: %w", l.path, err)
			}
			return
		}
		if !owns {
			return
		}
		if err := removeLockFile(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			l.relErr = fmt.Errorf("release lock %s: %w", l.path, err)
		}
	})
	return l.relErr
}

// LockState describes what occupies a lock path, for reports such as
// inspect's health.lock; acquisition never decides on it.
type LockState struct {
	Mode    fs.FileMode // type bits, symlinks followed (ModeSymlink: a dangling link)
	ModTime time.Time
	Token   string // content stripped of Python whitespace; regular files only
	Stale   bool   // a regular file older than the stale age (echoes-conformance §6)
}

// InspectLock reports what is at path; ok is false when nothing is. It only
// stats and reads (without blocking on a FIFO: the type is checked first),
// so read-only commands may call it (echoes-conformance §6 forbids them only
// to create or take the lock).
func InspectLock(path string, stale time.Duration, now time.Time) (st LockState, ok bool) {
	li, err := os.Lstat(path)
	if err != nil {
		return LockState{}, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return LockState{Mode: li.Mode().Type(), ModTime: li.ModTime()}, true
	}
	st = LockState{Mode: fi.Mode().Type(), ModTime: fi.ModTime()}
	if !fi.Mode().IsRegular() {
		return st, true
	}
	if b, err := readLockFile(path); err == nil {
		st.Token = pytext.Strip(string(b))
	}
	st.Stale = now.Sub(fi.ModTime()) > stale
	return st, true
}
