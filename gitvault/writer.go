package gitvault

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/git-echoes/git-echoes/internal/fsx"
)

// lockBusyMessage is the reference's lock timeout message.
const lockBusyMessage = "Another EchoesVault operation is still running. Retry after it finishes."

// writer performs the durable writes of one mutating command while holding
// the shared lock. Every write re-checks lock ownership first, so a process
// whose lock was taken over as stale stops instead of racing another writer.
type writer struct {
	ws   *Workspace
	lock *fsx.Lock
	// lockDir is the lock's directory (.echoes-vault/) when acquiring the
	// lock created it, else "".
	lockDir string
}

// lockOptions is variable so tests can shorten the wait.
var lockOptions = fsx.DefaultLockOptions()

func (ws *Workspace) acquire() (*writer, error) {
	dir := filepath.Dir(ws.Lock)
	_, statErr := os.Lstat(dir)
	created := errors.Is(statErr, os.ErrNotExist)
	lock, err := fsx.AcquireLock(ws.Lock, lockOptions)
	if err != nil {
		if created {
			_ = os.Remove(dir) // only if still empty
		}
		if errors.Is(err, fsx.ErrLockBusy) {
			return nil, wrapf(err, lockBusyMessage)
		}
		return nil, wrapf(err, "Cannot acquire EchoesVault lock %s: %s", ws.Lock, osDetail(err))
	}
	w := &writer{ws: ws, lock: lock}
	if created {
		w.lockDir = dir
	}
	return w, nil
}

// release gives the lock up. A command that fails leaves nothing behind
// (issue 11 item 8): when taking the lock created .echoes-vault/ and the
// command wrote nothing there (every successful command writes state.json
// into it, echoes-conformance §14.3), the directory goes too. os.Remove removes only an
// empty directory, so another writer's lock or file in it is never touched.
func (w *writer) release() {
	_ = w.lock.Release()
	if w.lockDir != "" {
		_ = os.Remove(w.lockDir)
	}
}

// write atomically replaces path, refusing symlinked targets.
func (w *writer) write(path string, data []byte) error {
	if err := w.lock.Verify(); err != nil {
		return wrapf(err, lockBusyMessage)
	}
	if err := fsx.WriteFileAtomic(path, data); err != nil {
		var se *fsx.SymlinkError
		if errors.As(err, &se) {
			return wrapf(err, "Refusing to replace a symbolic link: %s", path)
		}
		return wrapf(err, "Cannot write %s: %s", path, osDetail(err))
	}
	return nil
}

// create writes a new file that must not exist yet (daily entries).
func (w *writer) create(path string, data []byte) error {
	if err := w.lock.Verify(); err != nil {
		return wrapf(err, lockBusyMessage)
	}
	if err := fsx.CreateFileExclusive(path, data); err != nil {
		return wrapf(err, "Cannot write %s: %s", path, osDetail(err))
	}
	return nil
}

func (w *writer) mkdirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return wrapf(err, "Cannot create directory %s: %s", d, osDetail(err))
		}
	}
	return nil
}

// dirSource is the work-tree page source.
type dirSource struct{ dir string }

func (d dirSource) PageNames() ([]string, error) {
	names, err := listPageNames(d.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return names, err
}

func (d dirSource) ReadPage(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join(d.dir, name))
}

// openDir returns a reader that resolves the pages directory once; the
// per-file path walk is a measurable share of scanning large vaults.
func (d dirSource) openDir() (pageReader, func(), error) {
	dir, err := fsx.OpenDir(d.dir)
	if err != nil {
		return nil, nil, err
	}
	return dir.ReadFileBuf, func() { _ = dir.Close() }, nil
}
