// Package fswatch tells a long-lived process whether anything changed under
// a set of directory trees since it last looked, through the operating
// system's change notification (github.com/fsnotify/fsnotify: inotify,
// kqueue, ReadDirectoryChangesW), with a per-call barrier that makes "no
// change" a proof rather than a guess (issue 19). It knows nothing of
// vaults: callers name trees, ask Sync before answering from memory, and
// fall back to their own revalidation whenever Sync says it cannot prove
// anything.
//
// # The contract
//
// Sync returns a generation (of the trees it is asked about) and ok. When
// ok is true, every change to a name under those trees (or on their paths)
// that completed before Sync was called has been counted in the generation
// it returns (the generation moved past any
// value an earlier Sync returned before that change). A caller that keeps
// an answer computed after a Sync that returned (g, true) may therefore
// reuse it while later Syncs return (g, true) too: nothing it depended on
// changed. When ok is false the caller must revalidate as if there were no
// watcher; the reason is in State.
//
// # Why the barrier is needed, and why it is sufficient
//
// Event delivery is asynchronous everywhere: the kernel queues an event
// when the change is made, and this process reads it later. "No event yet"
// therefore proves nothing. Sync gives a uniquely named cookie file to a
// private directory watched by the same watcher and waits until its own
// Create event has been consumed. The name is given by renaming the
// previous barrier's cookie (one system call; inotify's IN_MOVED_TO and
// kqueue's directory NOTE_WRITE are queued inside it, as a creation's
// are, and fsnotify reports the new name as Create), or, when there is
// none, by creating the file:
//
//   - inotify (Linux): one inotify instance has one event queue for all its
//     watches, and an event is appended to it synchronously inside the
//     system call that made the change (fsnotify_modify, fsnotify_move, ...
//     run before the call returns to user space). A change by another
//     process that completed before Sync started is thus queued before the
//     cookie's IN_CREATE, and fsnotify reads the queue in order and hands
//     events and errors (including IN_Q_OVERFLOW, sent as ErrEventOverflow)
//     over unbuffered channels from one goroutine, which our one consumer
//     goroutine receives in the same order. Seeing the cookie means every
//     earlier event (or the overflow that replaced it) has been counted.
//     Not reported by inotify at all: changes through mmap, and changes
//     made through another hard link to a file (the event goes to the
//     directory of the name used). Network and FUSE file systems report
//     only this kernel's own changes, so they are refused (EventlessFS).
//   - kqueue (BSD, macOS): one kqueue keeps activated knotes on one list in
//     activation order, and a knote is activated synchronously by the
//     vnode operation; fsnotify reads them in batches in that order. The
//     same argument holds for the cookie directory's NOTE_WRITE.
//   - ReadDirectoryChangesW (Windows): each watched directory has its own
//     handle and its own buffer, and a change is delivered when that
//     handle's next read completes; completions of different handles reach
//     the completion port in no defined order. A cookie in one directory
//     proves nothing about another, and a cookie in every watched vault
//     directory would be a write into the user's vault on every call. So
//     on Windows Sync always returns ok=false ("no ordered barrier"): the
//     watcher still runs (State shows it), and callers revalidate.
//
// If the cookie's event does not arrive in time (a dropped event after an
// overflow, a stalled reader), Sync returns ok=false for that call.
//
// # What is watched
//
// Each tree root and every directory below it (never through a symlink),
// and every ancestor of each root up to the file-system root, so that a
// rename, removal or symlink swap of any component of a root's path is
// seen; in an ancestor only the entry that leads to a root is relevant, the
// rest of its events are ignored. A directory created inside a tree is
// watched before its entries are listed, so nothing created in it is
// missed; a removed or renamed-away directory is unwatched, and re-watched
// when its path names a directory again (identity checked by device and
// inode, as inotify watches inodes, not names). Any relevant event, any
// overflow and any watch error moves the generation on.
package fswatch

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/git-echoes/git-echoes/internal/fsx"
)

// Mode is how a watcher's callers must treat their caches.
type Mode string

const (
	// Events: Sync proves freshness; callers answer from memory.
	Events Mode = "events"
	// Revalidate: callers revalidate every call (today's behaviour).
	Revalidate Mode = "revalidate"
)

// State is what a watcher reports about itself (mcp --verbose, the viewer).
type State struct {
	Mode      Mode
	Reason    string // why Mode is Revalidate ("" under Events)
	Watches   int    // directories watched
	Overflows int    // event-queue overflows seen
	Events    uint64 // relevant events counted
}

func (s State) String() string {
	t := fmt.Sprintf("change notification: %s (%d directories watched", s.Mode, s.Watches)
	if s.Overflows > 0 {
		t += fmt.Sprintf(", %d overflows", s.Overflows)
	}
	t += ")"
	if s.Reason != "" {
		t += ": " + s.Reason
	}
	return t
}

// Options configure New.
type Options struct {
	// MaxWatches bounds the directories watched (0: 8192); past it the
	// watcher reports Revalidate.
	MaxWatches int
	// CookieDir is where the private barrier directory is made ("": the OS
	// temporary directory).
	CookieDir string
	// Timeout bounds the wait for a barrier (0: 2 s).
	Timeout time.Duration
	// Logf, when set, is told of every change of mode.
	Logf func(format string, args ...any)
}

// Watcher watches trees; see the package documentation.
type Watcher struct {
	opt Options
	fw  *fsnotify.Watcher

	mu       sync.Mutex
	global   uint64            // moves for everything: overflows, errors, failed barriers, new trees
	counts   map[string]uint64 // per tree: the events that concern it
	roots    []string
	watched  map[string]fsx.Ident // directory -> identity when watched
	failed   string               // why the last reconcile could not watch everything ("" when it could)
	fatal    string               // why the watcher cannot work at all
	over     int
	events   uint64
	lastMode Mode
	retryAt  time.Time

	cookieDir string
	seq       uint64
	waiters   map[string]chan bool // a barrier's cookie -> its wait (true: lost to an overflow)

	// cookieMu orders the barriers' renames: cookie is the name the
	// cookie file has after the last one ("" when there is no file).
	cookieMu sync.Mutex
	cookie   string

	// passive: events are only counted (in passiveGen), never acted on,
	// and the consumer never takes mu. Windows: Sync never proves anything
	// there, and the backend's Add waits for its reader goroutine, which
	// may be waiting for our consumer.
	passive    bool
	passiveGen atomic.Uint64

	// hold, when set (tests), is received from before each event or
	// error is consumed: a test stalls the consumer to make the kernel's
	// queue overflow for real.
	hold chan struct{}

	done chan struct{}
	wg   sync.WaitGroup
}

// New starts a watcher with no trees. It never fails: a watcher that
// cannot work reports Revalidate, with its reason, from Sync and State.
func New(opt Options) *Watcher { return newWatcher(opt, nil) }

func newWatcher(opt Options, hold chan struct{}) *Watcher {
	if opt.MaxWatches <= 0 {
		opt.MaxWatches = 8192
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 2 * time.Second
	}
	w := &Watcher{opt: opt, watched: map[string]fsx.Ident{}, counts: map[string]uint64{}, waiters: map[string]chan bool{}, hold: hold, done: make(chan struct{})}
	fw, err := fsnotify.NewWatcher() // unbuffered: events and errors keep their order (see the package doc)
	if err != nil {
		w.fatal = "cannot start change notification: " + err.Error()
		w.note()
		return w
	}
	w.fw = fw
	dir, err := fsx.MkdirTemp(opt.CookieDir, "git-echoes-watch-")
	if err == nil {
		err = fw.Add(dir)
	}
	if err != nil {
		w.fatal = "cannot set up the barrier directory: " + err.Error()
		if dir != "" {
			_ = fsx.RemoveTree(dir)
		}
	} else {
		w.cookieDir = filepath.Clean(dir)
	}
	if runtime.GOOS == "windows" {
		w.passive = true
		if w.fatal == "" {
			w.fatal = "ReadDirectoryChangesW gives no ordered barrier across directories"
		}
	}
	w.wg.Add(1)
	go w.loop()
	w.note()
	return w
}

// Close stops the watcher and removes its barrier directory.
func (w *Watcher) Close() error {
	if w.fw == nil {
		return nil
	}
	close(w.done)
	err := w.fw.Close()
	w.wg.Wait()
	if w.cookieDir != "" {
		if e := fsx.RemoveTree(w.cookieDir); err == nil {
			err = e
		}
	}
	return err
}

// Watch adds trees (absolute paths; already watched ones are ignored). A
// tree that does not exist yet is watched from its nearest existing
// ancestor and picked up when it appears.
func (w *Watcher) Watch(roots ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	added := false
	for _, r := range roots {
		r = filepath.Clean(r)
		if !filepath.IsAbs(r) || containsPath(w.roots, r) {
			continue
		}
		w.roots = append(w.roots, r)
		added = true
		if kind := fsx.EventlessFS(nearestExisting(r)); kind != "" && w.fatal == "" {
			w.fatal = "the file system of " + r + " (" + kind + ") reports no changes made elsewhere"
		}
	}
	if added && w.fw != nil {
		w.global++
		w.reconcileLocked()
	}
	w.noteLocked()
}

func containsPath(list []string, p string) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}

func nearestExisting(p string) string {
	for {
		if _, err := fsx.LstatIdent(p); err == nil {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

// State reports the watcher's mode.
func (w *Watcher) State() State {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stateLocked()
}

func (w *Watcher) stateLocked() State {
	s := State{Mode: Events, Watches: len(w.watched), Overflows: w.over, Events: w.events + w.passiveGen.Load()}
	switch {
	case w.fatal != "":
		s.Mode, s.Reason = Revalidate, w.fatal
	case w.failed != "":
		s.Mode, s.Reason = Revalidate, w.failed
	}
	return s
}

func (w *Watcher) note() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.noteLocked()
}

func (w *Watcher) noteLocked() {
	s := w.stateLocked()
	if s.Mode != w.lastMode && w.opt.Logf != nil {
		w.opt.Logf("%s", s)
	}
	w.lastMode = s.Mode
}

// genLocked is the generation of trees (all of them when none is named):
// the global count plus each tree's own. Every count only grows, so the
// sum moves whenever any part of it does.
func (w *Watcher) genLocked(trees []string) uint64 {
	g := w.global
	if len(trees) == 0 {
		for _, c := range w.counts {
			g += c
		}
		return g
	}
	for _, t := range trees {
		g += w.counts[filepath.Clean(t)]
	}
	return g
}

// Sync is the barrier: see the package documentation. The generation it
// returns is that of the named trees (each must have been given to Watch;
// none: all trees), so a change in one tree does not move another's.
func (w *Watcher) Sync(trees ...string) (uint64, bool) {
	w.mu.Lock()
	if w.fatal != "" || w.fw == nil {
		g := w.genLocked(trees)
		w.mu.Unlock()
		return g, false
	}
	if w.failed != "" && time.Now().After(w.retryAt) {
		// A watch limit or a symlinked component may have gone away.
		w.global++
		w.reconcileLocked()
		w.noteLocked()
	}
	if w.failed != "" {
		g := w.genLocked(trees)
		w.mu.Unlock()
		return g, false
	}
	w.mu.Unlock()
	// An overflow drops the events queued behind it, a cookie's among them:
	// handleError then releases the waiters as lost, and the barrier is
	// tried again with a new cookie, whose event (or a later overflow)
	// comes after the overflow was counted.
	ok := false
	for attempt := 0; attempt < 3 && !ok; attempt++ {
		var lost bool
		ok, lost = w.barrier()
		if !lost {
			break
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !ok {
		// The next call must not trust anything counted before.
		w.global++
		return w.genLocked(trees), false
	}
	return w.genLocked(trees), w.failed == "" && w.fatal == ""
}

// barrier creates one cookie and waits for its event: ok when it came,
// lost when an overflow released the wait (the cookie's event may have
// been dropped with the others).
func (w *Watcher) barrier() (ok, lost bool) {
	w.mu.Lock()
	w.seq++
	name := "c" + strconv.FormatUint(w.seq, 10)
	ch := make(chan bool, 1)
	w.waiters[name] = ch
	w.mu.Unlock()

	if err := w.giveCookie(name); err == nil {
		t := time.NewTimer(w.opt.Timeout)
		select {
		case lost = <-ch:
			ok = !lost
		case <-t.C:
		case <-w.done:
		}
		t.Stop()
	}
	w.mu.Lock()
	delete(w.waiters, name)
	w.mu.Unlock()
	return ok, lost
}

// giveCookie makes the one cookie file's name name: a rename of the
// previous barrier's (the cheapest change with an event that carries the
// new name), else a new file. The file is removed with the directory
// (Close).
func (w *Watcher) giveCookie(name string) error {
	w.cookieMu.Lock()
	defer w.cookieMu.Unlock()
	path := filepath.Join(w.cookieDir, name)
	if w.cookie != "" {
		prev := filepath.Join(w.cookieDir, w.cookie)
		if err := fsx.RenameMarker(prev, path); err == nil {
			w.cookie = name
			return nil
		}
		// Gone (someone cleaned the temporary directory): start anew.
		_ = fsx.RemoveFile(prev)
		w.cookie = ""
	}
	if err := fsx.CreateMarker(path); err != nil {
		return err
	}
	w.cookie = name
	return nil
}

func (w *Watcher) loop() {
	defer w.wg.Done()
	for {
		if w.hold != nil {
			select {
			case <-w.hold:
			case <-w.done:
				return
			}
		}
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			w.handleError(err)
		}
	}
}

func (w *Watcher) handleError(err error) {
	if w.passive {
		w.passiveGen.Add(1)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.global++
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		// Events were dropped, directory creations among them perhaps:
		// everything counts as changed and every watch is checked again.
		w.over++
		w.reconcileLocked()
		for name, ch := range w.waiters {
			ch <- true // its cookie's event may be among the dropped
			delete(w.waiters, name)
		}
	}
	w.noteLocked()
}

func (w *Watcher) handle(ev fsnotify.Event) {
	if w.passive {
		w.passiveGen.Add(1)
		return
	}
	name := filepath.Clean(ev.Name)
	w.mu.Lock()
	defer w.mu.Unlock()
	if filepath.Dir(name) == w.cookieDir {
		if ch, ok := w.waiters[filepath.Base(name)]; ok && ev.Has(fsnotify.Create) {
			ch <- false
			delete(w.waiters, filepath.Base(name))
		}
		return
	}
	inTree, onPath := w.classify(name)
	if !inTree && !onPath {
		return // another entry of an ancestor directory
	}
	w.events++
	switch {
	case onPath:
		// A component of a root's path (or a root) appeared, went or was
		// replaced: check every watch.
		w.reconcileLocked()
	case ev.Has(fsnotify.Create):
		// A new directory in a tree is watched, then listed.
		if id, err := fsx.LstatIdent(name); err == nil && id.Mode&fs.ModeType == fs.ModeDir {
			w.addTreeLocked(name, 0)
		}
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		if _, ok := w.watched[name]; ok {
			w.dropUnderLocked(name)
			w.reconcileLocked()
		}
	}
	w.noteLocked()
}

// classify: inTree when name is below a root; onPath when name is a root
// or one of its ancestors (the entry an ancestor's watch cares about).
// Each root concerned has its count moved.
func (w *Watcher) classify(name string) (inTree, onPath bool) {
	for _, r := range w.roots {
		hit := false
		if name == r || strings.HasPrefix(r, name+string(filepath.Separator)) || (strings.HasSuffix(name, string(filepath.Separator)) && strings.HasPrefix(r, name)) {
			onPath, hit = true, true
		}
		if strings.HasPrefix(name, r+string(filepath.Separator)) {
			inTree, hit = true, true
		}
		if hit {
			w.counts[r]++
		}
	}
	return inTree, onPath
}

// reconcileLocked makes the watches match the roots: every existing
// directory on each root's path and in each tree watched with its current
// identity, nothing else.
func (w *Watcher) reconcileLocked() {
	w.failed = ""
	// Watches whose path now names something else (or nothing) go first.
	for p, id := range w.watched {
		cur, err := fsx.LstatIdent(p)
		if err != nil || cur.Mode&fs.ModeType != fs.ModeDir || !cur.SameFile(id) {
			w.unwatchLocked(p)
		}
	}
	for _, r := range w.roots {
		chain := ancestors(r)
		for i, a := range chain {
			id, err := fsx.LstatIdent(a)
			if err != nil {
				break // does not exist (yet): its parent's watch will see it appear
			}
			if id.Mode&fs.ModeSymlink != 0 {
				w.fail("a component of " + r + " is a symbolic link (" + a + "); links are not followed")
				break
			}
			if id.Mode&fs.ModeType != fs.ModeDir {
				break
			}
			if i == len(chain)-1 {
				w.addTreeLocked(a, 0)
			} else if !w.watchLocked(a, id) {
				break
			}
		}
	}
	if w.failed != "" {
		w.retryAt = time.Now().Add(time.Second)
	}
}

func (w *Watcher) fail(reason string) {
	if w.failed == "" {
		w.failed = reason
	}
}

// ancestors lists p's path from the file-system root down to p.
func ancestors(p string) []string {
	var out []string
	for {
		out = append(out, p)
		parent := filepath.Dir(p)
		if parent == p {
			break
		}
		p = parent
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// maxDepth bounds how deep a tree is watched; deeper directories make the
// watcher report Revalidate (vault trees are two or three levels deep).
const maxDepth = 16

// addTreeLocked watches dir, then lists it and does the same for each
// subdirectory (never a symlink): watching before listing means an entry
// created meanwhile is either listed or reported.
func (w *Watcher) addTreeLocked(dir string, depth int) {
	if depth > maxDepth {
		w.fail("directories nested deeper than " + strconv.Itoa(maxDepth) + " levels in " + dir)
		return
	}
	id, err := fsx.LstatIdent(dir)
	if err != nil || id.Mode&fs.ModeType != fs.ModeDir {
		return
	}
	if !w.watchLocked(dir, id) {
		return
	}
	entries, err := fsx.ReadDirEntries(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			w.fail("cannot list " + dir + ": " + err.Error())
		}
		return
	}
	for _, e := range entries {
		if e.Type()&fs.ModeType == fs.ModeDir {
			w.addTreeLocked(filepath.Join(dir, e.Name()), depth+1)
		}
	}
}

// watchLocked makes sure dir is watched as the directory id names.
func (w *Watcher) watchLocked(dir string, id fsx.Ident) bool {
	if old, ok := w.watched[dir]; ok && old.SameFile(id) {
		return true
	}
	if len(w.watched) >= w.opt.MaxWatches {
		w.fail("more than " + strconv.Itoa(w.opt.MaxWatches) + " directories to watch")
		return false
	}
	if err := w.fw.Add(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false
		}
		w.fail(addFailure(dir, err))
		return false
	}
	// The name may have been swapped between the Lstat and the Add (which
	// follows a symlink): if it is not the directory we meant, the watch
	// is dropped and the swap's own event, in the parent, brings us back.
	cur, err := fsx.LstatIdent(dir)
	if err != nil || !cur.SameFile(id) || cur.Mode&fs.ModeType != fs.ModeDir {
		_ = w.fw.Remove(dir)
		w.global++
		return false
	}
	w.watched[dir] = id
	return true
}

func addFailure(dir string, err error) string {
	if errno, ok := fsx.Errno(err); ok && errno == syscall.ENOSPC {
		return "the limit on watches is reached (fs.inotify.max_user_watches) at " + dir
	}
	return "cannot watch " + dir + ": " + err.Error()
}

func (w *Watcher) unwatchLocked(p string) {
	_ = w.fw.Remove(p) // already gone when the kernel dropped it (ErrNonExistentWatch)
	delete(w.watched, p)
}

// dropUnderLocked unwatches p and everything below it.
func (w *Watcher) dropUnderLocked(p string) {
	for q := range w.watched {
		if q == p || strings.HasPrefix(q, p+string(filepath.Separator)) {
			w.unwatchLocked(q)
		}
	}
}
