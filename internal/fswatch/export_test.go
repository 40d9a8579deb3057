package fswatch

import "sort"

// NewHeld starts a watcher whose consumer takes one event or error only
// when a value is sent on hold (or hold is closed).
func NewHeld(opt Options, hold chan struct{}) *Watcher { return newWatcher(opt, hold) }

// Watched lists the watched directories.
func (w *Watcher) Watched() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for p := range w.watched {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Generation is the generation of all trees, without a barrier.
func (w *Watcher) Generation() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.genLocked(nil)
}
