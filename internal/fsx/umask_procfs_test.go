//go:build linux && !echoes_portable

package fsx

import (
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func TestProcUmaskMatchesSyscall(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	old := syscall.Umask(0o022)
	syscall.Umask(old)
	got, ok := readProcUmask("/proc/self/status")
	if !ok {
		t.Skip("kernel does not report Umask in /proc/self/status")
	}
	if got != fs.FileMode(old) {
		t.Fatalf("umask from /proc = %o, syscall says %o", got, old)
	}
}
