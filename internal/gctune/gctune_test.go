package gctune

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestShortLived: the raised setting holds while the live heap stays
// under the limit, and the previous one comes back once a collection
// finds more; a GOGC set by the user is left alone.
func TestShortLived(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if !ShortLived(400, 8<<20) {
		t.Fatal("not raised")
	}
	runtime.GC()
	runtime.GC()
	if p := current(); p != 400 {
		t.Fatalf("small heap: percent %d, want 400", p)
	}
	keep := make([][]byte, 0, 64)
	for i := 0; i < 32; i++ {
		keep = append(keep, make([]byte, 1<<20)) // 32 MB live
	}
	deadline := time.Now().Add(10 * time.Second)
	for current() != 100 {
		if time.Now().After(deadline) {
			t.Fatalf("live heap past the limit: percent still %d", current())
		}
		runtime.GC()
		time.Sleep(time.Millisecond) // the finalizer runs on its own goroutine
	}
	runtime.KeepAlive(keep)

	t.Setenv("GOGC", "150")
	if ShortLived(400, 8<<20) || current() != 100 {
		t.Fatal("GOGC set by the user was overridden")
	}
}

// current reads the setting without changing it (a SetGCPercent round
// trip could undo the finalizer's write).
func current() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}
