package gctune

import (
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Prefaulting the heap of a short command that is about to grow it
// (issue 18, cold stale).
//
// A cold git echoes stale over 1,000 pages and 10,000 commits grows the
// Go heap to about 90 MB, and the kernel maps each 4 KiB page of it on
// first touch: 23,500 page faults. On the virtual machines this is
// measured on a fault costs about 12 µs (a C loop touching fresh pages
// measures the same), so the faults alone were a quarter of the
// command's CPU. Touched through madvise(MADV_POPULATE_WRITE), the same
// pages cost under 1 µs each, and in transparent huge pages (madvise mode,
// the usual default) 2 MiB at a time, 100 MB in 6 ms; the huge pages also
// make the walk's own memory accesses cheaper (fewer TLB misses: the
// command's user time fell by a fifth).
//
// PrefaultHeap does that ahead of the allocations: it allocates one large
// object (fresh address space, not yet touched), advises huge pages for
// it, populates it, drops it and collects, all on a goroutine of its own
// while the caller starts its work. The object's pages then sit free in
// the heap, resident, and the allocator hands them to the spans the work
// asks for. The Go runtime offers no setting for this: it stopped
// advising huge pages for the heap in Go 1.21.1 because, in long-lived
// servers, khugepaged collapsing sparse heap regions bloated memory. That
// is why it is an opt-in of short commands (AllowPrefault), which end
// before any of that matters, and never the MCP server's or the viewer's.

// Bounds of PrefaultHeap: under minPrefault the faults are not worth a
// goroutine and a collection (a run that small takes a few tens of
// milliseconds); past maxPrefault what the work needs beyond is faulted
// as usual.
const (
	minPrefault = 32 << 20
	maxPrefault = 128 << 20
)

var (
	prefaultAllowed atomic.Bool
	prefaultOnce    sync.Once
	prefaultStarted atomic.Bool
	// prefaulted is what PrefaultHeap populated, and prefaultRunning
	// its goroutine, for the tests.
	prefaulted      atomic.Int64
	prefaultRunning sync.WaitGroup
)

// AllowPrefault lets PrefaultHeap work in this process: a command that
// exits when its answer is printed calls it first.
func AllowPrefault() { prefaultAllowed.Store(true) }

// PrefaultWanted reports whether PrefaultHeap would still do anything in
// this process (it was allowed and has not run), so that a caller can
// skip estimating a size that would be thrown away.
func PrefaultWanted() bool { return prefaultAllowed.Load() && !prefaultStarted.Load() }

// PrefaultHeap populates about n bytes of heap in the background for the
// allocations the caller is about to make (see above). It does nothing
// unless AllowPrefault was called, when n is under minPrefault, after
// the first time it worked in the process, and where the system has no
// way to populate memory ahead (then the pages are faulted as usual).
// Huge pages are asked for unless GODEBUG has disablethp=1.
// It never changes what the program computes: only where its memory
// comes from.
func PrefaultHeap(n int) {
	if n < minPrefault || !prefaultAllowed.Load() {
		return
	}
	prefaultOnce.Do(func() {
		prefaultStarted.Store(true)
		prefaultRunning.Add(1)
		go func() {
			defer prefaultRunning.Done()
			prefaultNow(min(n, maxPrefault))
		}()
	})
}

// prefaultChunk is how much is populated at a time, and slowChunk the
// time past which a chunk counts as slow. On the machines this was
// measured on, a chunk of huge pages populates in 1-2 ms and one of 4 KiB
// pages in 3-4; but now and then the kernel has no huge page ready and
// makes each anew, at 30-40 ms a chunk (a C loop over madvise showed the
// same): populated whole in huge pages, such a run took the CPU the walk
// needed and ended slower than without. After a slow chunk the rest is
// populated in 4 KiB pages, and after a second one the rest is left to
// be faulted as usual: such a run loses at most two chunks' time.
const (
	prefaultChunk = 16 << 20
	slowChunk     = 8 * time.Millisecond
)

// thpDisabled reports whether godebug (GODEBUG's value) turns off the Go
// runtime's use of transparent huge pages (disablethp=1, Go 1.21.6): the
// user who asked for that gets 4 KiB pages here too.
func thpDisabled(godebug string) bool {
	on := false
	for _, kv := range strings.Split(godebug, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == "disablethp" {
			on = v == "1" // the last setting wins, as in the runtime
		}
	}
	return on
}

// prefaultNow is PrefaultHeap's work, on the calling goroutine.
func prefaultNow(n int) {
	b := make([]byte, n)
	huge := !thpDisabled(os.Getenv("GODEBUG"))
	for off := 0; off < len(b); off += prefaultChunk {
		start := time.Now()
		c := b[off:min(off+prefaultChunk, len(b))]
		if populate(c, huge) != nil {
			break
		}
		prefaulted.Add(int64(len(c)))
		if time.Since(start) > slowChunk {
			if !huge {
				break
			}
			huge = false
		}
	}
	// b is dead from here: the collection frees the object and sets the
	// next goal from what is really live. Left to a later cycle, the one
	// its allocation may have started while populate ran would keep it
	// and put the goal past twice its size.
	runtime.GC()
}
