package gitvault

import (
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/git-echoes/git-echoes/internal/fsx"
)

// lockBusyMessage is the reference's lock timeout message.
const lockBusyMessage = "Another EchoesVault operation is still running. Retry after it finishes."

// writer performs the durable writes of one mutating command while holding
// the shared lock. Every write re-checks lock ownership first, so a process
// whose lock was taken over as stale stops instead of racing another writer.
type Writer struct {
	ws   *Workspace
	lock *fsx.Lock
	// lockDir is the lock's directory (.echoes-vault/) when acquiring the
	// lock created it, else "".
	lockDir string
	swept   map[string]bool // directories already swept of stale temps
}

// Workspace is the workspace whose lock the writer holds.
func (w *Writer) Workspace() *Workspace { return w.ws }

// LockOptions is variable so tests can shorten the wait.
var LockOptions = fsx.DefaultLockOptions()

func (ws *Workspace) Acquire() (*Writer, error) {
	dir := filepath.Dir(ws.Lock)
	_, statErr := os.Lstat(dir)
	created := errors.Is(statErr, os.ErrNotExist)
	lock, err := fsx.AcquireLock(ws.Lock, LockOptions)
	if err != nil {
		if created {
			_ = os.Remove(dir) // only if still empty
		}
		return nil, lockError(ws, err)
	}
	w := &Writer{ws: ws, lock: lock, swept: map[string]bool{}}
	if created {
		w.lockDir = dir
	}
	return w, nil
}

// Stale temporary files (issue 11 item 1): a crashed or killed write leaves
// its temporary file beside the target. Under the lock, a writer removes
// those of each directory the first time it writes there (so a command pays
// only for the directories it writes: append never lists pages/), and
// hydrate and rebuild-index sweep every directory the engine writes:
// EchoesVault/, pages/, daily/ and each daily/<date>/, and .echoes-vault/.
// Only exact temporary names older than fsx.StaleTempAge go, so a live
// writer's file is never touched. It is best effort: a failure here never
// fails the command.

// sweepDir removes the stale temporary files of dir once per command, if
// dir is one the engine writes.
func (w *Writer) sweepDir(dir string) {
	if w.swept[dir] {
		return
	}
	w.swept[dir] = true
	ws := w.ws
	if dir != ws.Vault && dir != ws.Pages && dir != ws.Daily && dir != ws.RuntimeDir && filepath.Dir(dir) != ws.Daily {
		return
	}
	_, _ = fsx.RemoveStaleTemps(dir, fsx.StaleTempAge, time.Now()) // real time, whatever clock tests fix for now
}

// sweepListed sweeps dir from names already listed from it (its
// IsTempName entries), once per command as sweepDir does.
func (w *Writer) sweepListed(dir string, temps []string) {
	if w.swept[dir] {
		return
	}
	w.swept[dir] = true
	if len(temps) == 0 || !fsx.IsDirNoFollow(dir) { // a symlinked directory is left alone, as RemoveStaleTemps does
		return
	}
	_, _ = fsx.RemoveStaleTempNames(dir, temps, fsx.StaleTempAge, time.Now()) // real time, as sweepDir
}

// sweepAllBut sweeps every directory the engine writes except skip, which
// the caller sweeps from a listing of its own (sweepListed).
func (w *Writer) sweepAllBut(skip string) {
	w.sweepDirs(skip)
}

// sweepAll sweeps every directory the engine writes.
func (w *Writer) sweepAll() { w.sweepDirs("") }

func (w *Writer) sweepDirs(skip string) {
	dirs := []string{w.ws.Vault, w.ws.Pages, w.ws.Daily, w.ws.RuntimeDir}
	if fsx.IsDirNoFollow(w.ws.Daily) {
		if entries, err := os.ReadDir(w.ws.Daily); err == nil {
			for _, e := range entries {
				if e.IsDir() {
					dirs = append(dirs, filepath.Join(w.ws.Daily, e.Name()))
				}
			}
		}
	}
	for _, d := range dirs {
		if d != skip {
			w.sweepDir(d)
		}
	}
}

// Release gives the lock up. A command that fails leaves nothing behind
// (issue 11 item 8): when taking the lock created .echoes-vault/ and the
// command wrote nothing there (every successful command writes state.json
// into it, echoes-conformance §14.3), the directory goes too. os.Remove removes only an
// empty directory, so another writer's lock or file in it is never touched.
func (w *Writer) Release() {
	_ = w.lock.Release()
	if w.lockDir != "" {
		_ = os.Remove(w.lockDir)
	}
}

// Write atomically replaces path, refusing symlinked targets.
func (w *Writer) Write(path string, data []byte) error {
	w.sweepDir(filepath.Dir(path))
	return w.guarded(func() error {
		if err := refuseIrregular(path); err != nil {
			return err
		}
		if err := fsx.WriteFileAtomic(path, data); err != nil {
			var se *fsx.SymlinkError
			if errors.As(err, &se) {
				return Wrapf(err, "Refusing to replace a symbolic link: %s", path)
			}
			return Wrapf(err, "Cannot write %s: %s", path, OSDetail(err))
		}
		return nil
	})
}

// Create writes a new file that must not exist yet (daily entries).
func (w *Writer) Create(path string, data []byte) error {
	w.sweepDir(filepath.Dir(path))
	return w.guarded(func() error {
		if err := fsx.CreateFileExclusive(path, data); err != nil {
			return Wrapf(err, "Cannot write %s: %s", path, OSDetail(err))
		}
		return nil
	})
}

// guarded runs one durable write under fsx.Lock.Guard: ownership is
// re-checked first (echoes-conformance §6 Quirk), and a release by a signal
// handler (ReleaseLocks) waits for it and stops the writes after it.
func (w *Writer) guarded(fn func() error) error {
	err := w.lock.Guard(fn)
	if _, ok := err.(*Error); err != nil && !ok {
		return Wrapf(err, lockBusyMessage) // only Verify's errors are not *Error
	}
	return err
}

// ReleaseLocks releases the shared lock of every command this process is
// running, for a caller about to exit on SIGINT or SIGTERM (issue 11 item 2):
// a write in progress completes, later writes fail with the lock error, and
// only a lock file that still holds this process's token is removed
// (echoes-conformance §6 Release). The engine itself never exits.
func ReleaseLocks() error { return fsx.ReleaseHeld() }

func (w *Writer) Mkdirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return Wrapf(err, "Cannot create directory %s: %s", d, OSDetail(err))
		}
	}
	return nil
}

// DirSource is the work-tree page source.
type DirSource struct{ Dir string }

func (d DirSource) PageNames() ([]string, error) {
	names, err := listPageNames(d.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return names, err
}

func (d DirSource) ReadPage(name string) ([]byte, error) {
	return fsx.ReadFile(filepath.Join(d.Dir, name))
}

// openDir returns a reader that resolves the pages directory once; the
// per-file path walk is a measurable share of scanning large vaults.
func (d DirSource) openDir() (pageReader, func(), error) {
	dir, err := fsx.OpenDir(d.Dir)
	if err != nil {
		return nil, nil, err
	}
	return dir.ReadFileBuf, func() { _ = dir.Close() }, nil
}
