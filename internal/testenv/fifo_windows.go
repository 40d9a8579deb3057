//go:build windows

package testenv

import "testing"

// MakeFIFO skips: Windows has no FIFOs in the file system.
func MakeFIFO(t testing.TB, p string) {
	t.Skip("Windows has no FIFOs in the file system: its named pipes live under \\\\.\\pipe\\, never at a vault path")
}
