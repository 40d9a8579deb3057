// Package gctune sets the garbage collector for a short command whose
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
	"runtime/metrics"
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

// liveHeap is the heap the last collection marked live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
