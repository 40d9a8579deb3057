// Package gctune sets the memory of a short command: the garbage
// collector's setting (ShortLived, below) and, for a walk about to grow
// the heap, its pages populated ahead (PrefaultHeap, prefault.go). The
// collector's part is for a command whose
// heap is usually small but may grow with the repository (issue 19,
// "History at git's speed"): git echoes log --follow on go-git's history
// lives for tens of milliseconds, keeps 2-4 MB, and at the default
// setting collected twice (about a fifth of its CPU with the allocation
// slow paths that follow); the same walk over a history of a million
// commits keeps hundreds of megabytes, where a raised setting would
// multiply the peak.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
)

// ShortLived raises the collector's target percentage to percent until a
// collection finds more than limit bytes of live heap, and from then on
// puts back the setting the process had: small runs collect rarely, large
// ones as before (their peak at most percent/100+1 times limit more than
// that). A GOGC or GOMEMLIMIT the user set is left alone. It returns
// whether it raised the setting.
func ShortLived(percent int, limit uint64) bool {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return false
	}
	prev := debug.SetGCPercent(percent)
	watch(prev, limit)
	return true
}

// watch re-arms itself after every collection (a finalizer runs once the
// collection that found its object unreachable has finished) until the
// live heap passes limit.
func watch(prev int, limit uint64) {
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		if liveHeap() > limit {
			debug.SetGCPercent(prev)
			return
		}
		watch(prev, limit)
	})
}

// liveHeap bounds from above the heap the last collection marked live:
// the allocated heap, read just after that collection (the finalizer runs
// once it has finished), is what it kept plus what was allocated since,
// so the setting is put back no later than the live heap passes limit.
// Not runtime/metrics' /gc/heap/live:bytes, exact but through a package
// whose init builds its table of every metric in every process (64 of the
// page faults of git echoes --version) for a reading only log --follow
// takes (issue 19, part 0). ReadMemStats stops the world for microseconds, once per
// collection of the commands that call ShortLived.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
