//go:build !linux

package gctune

import "testing"

// minorFaults: only Linux populates memory ahead (populate), so only there
// are its faults counted.
func minorFaults(t *testing.T) int64 {
	t.Helper()
	t.Fatal("no populate here: nothing to count")
	return 0
}
