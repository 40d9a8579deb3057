//go:build windows

package gitvault

import "testing"

func makeFIFO(t *testing.T, p string) {
	t.Skip("Windows has no FIFOs in the file system: its named pipes live under \\\\.\\pipe\\, never at a vault path")
}
