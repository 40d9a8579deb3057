package gctune

import (
	"runtime"
	"sync"
	"testing"
)

// resetPrefault puts PrefaultHeap back to a process's start.
func resetPrefault() {
	prefaultAllowed.Store(false)
	prefaultOnce = sync.Once{}
	prefaultStarted.Store(false)
	prefaulted.Store(0)
}

// TestPrefaultHeapOptIn: nothing happens before AllowPrefault, nor for
// less than minPrefault; once allowed, a large enough call populates (where
// the system can), and only the first does.
func TestPrefaultHeapOptIn(t *testing.T) {
	resetPrefault()
	defer resetPrefault()
	PrefaultHeap(64 << 20)
	runtime.GC() // a goroutine started by mistake would have run by now
	if n := prefaulted.Load(); n != 0 || PrefaultWanted() {
		t.Fatalf("not allowed: %d bytes populated, wanted %v", n, PrefaultWanted())
	}
	AllowPrefault()
	if !PrefaultWanted() {
		t.Fatal("allowed, not run: not wanted")
	}
	PrefaultHeap(minPrefault - 1)
	runtime.GC()
	if n := prefaulted.Load(); n != 0 {
		t.Fatalf("under the minimum: %d bytes populated", n)
	}
	// The once is still unused: the first large enough call runs it.
	ran := false
	prefaultOnce.Do(func() { ran = true })
	if !ran {
		t.Fatal("a refused call used up the process's one prefault")
	}
	// Once it has run, nothing more is wanted and a call does nothing.
	resetPrefault()
	AllowPrefault()
	PrefaultHeap(minPrefault)
	if PrefaultWanted() {
		t.Fatal("still wanted after the prefault started")
	}
	prefaultRunning.Wait()
	want := int64(minPrefault)
	if populate(make([]byte, 1<<20), false) != nil { // a large object: page-aligned
		want = 0 // nothing can be populated here (TestPrefaultNow)
	}
	if got := prefaulted.Load(); got != want {
		t.Fatalf("the process's prefault populated %d bytes, want %d", got, want)
	}
}

// TestPrefaultNow: the populated memory is handed to the allocations that
// follow, which then touch it without a page fault per page (Linux, where
// MADV_POPULATE_WRITE exists; elsewhere nothing is populated). Whether
// the runtime zeroes (and so touches) the large object itself depends on
// the heap's history, so this is the whole path's check; that populate
// makes memory resident is TestPopulateMakesResident's.
func TestPrefaultNow(t *testing.T) {
	resetPrefault()
	defer resetPrefault()
	const n = 64 << 20
	if err := populate(make([]byte, 1<<20), false); err != nil {
		// No way to populate here (not Linux, or a kernel before 5.14):
		// prefaultNow must populate nothing and change nothing else.
		prefaultNow(n)
		if got := prefaulted.Load(); got != 0 {
			t.Fatalf("populate fails (%v), yet %d bytes counted", err, got)
		}
		return
	}
	runtime.GC()
	prefaultNow(n)
	// At least two chunks: the first slow one switches to 4 KiB pages,
	// the second slow one stops.
	got := prefaulted.Load()
	if got < 2*prefaultChunk || got > n {
		t.Fatalf("populated %d bytes of %d", got, n)
	}
	if raceOn {
		return // the race detector's shadow memory faults on every first touch
	}
	const touch = 16 << 20
	// Fresh memory takes one fault per 4 KiB page: 4,096 here.
	if faults := faultsTouching(t, touch); faults > touch/4096/4 {
		t.Fatalf("%d page faults touching %d MiB after the prefault (fresh memory: %d)", faults, touch>>20, touch/4096)
	}
}

// faultsTouching allocates n bytes in 1 MiB objects, writes a byte of
// each page, and returns the page faults that took.
func faultsTouching(t *testing.T, n int) int64 {
	t.Helper()
	before := minorFaults(t)
	keep := make([][]byte, 0, n>>20)
	for i := 0; i < n>>20; i++ {
		b := make([]byte, 1<<20)
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		keep = append(keep, b)
	}
	faults := minorFaults(t) - before
	runtime.KeepAlive(keep)
	return faults
}

// TestThpDisabled: GODEBUG's disablethp, read as the runtime reads it.
func TestThpDisabled(t *testing.T) {
	for _, c := range []struct {
		godebug string
		want    bool
	}{
		{"", false},
		{"disablethp=1", true},
		{"gctrace=1,disablethp=1", true},
		{"disablethp=0", false},
		{"disablethp=1,disablethp=0", false},
		{"xdisablethp=1", false},
		{"disablethp", false},
	} {
		if got := thpDisabled(c.godebug); got != c.want {
			t.Errorf("thpDisabled(%q) = %v, want %v", c.godebug, got, c.want)
		}
	}
}
