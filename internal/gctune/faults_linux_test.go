package gctune

import (
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// minorFaults is the process's count of minor page faults so far.
func minorFaults(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return int64(ru.Minflt) // int32 where int has 32 bits
}

// TestPopulateMakesResident: populate maps every page of fresh anonymous
// memory (mincore), in huge pages or 4 KiB ones, before anything touches
// it; a kernel without MADV_POPULATE_WRITE (before 5.14) answers EINVAL.
func TestPopulateMakesResident(t *testing.T) {
	for _, huge := range []bool{true, false} {
		const n = 8 << 20
		b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
		if err != nil {
			t.Fatal(err)
		}
		vec := make([]byte, n/unix.Getpagesize())
		if err := mincore(b, vec); err != nil {
			t.Fatal(err)
		}
		if r := resident(vec); r != 0 {
			t.Fatalf("fresh mapping: %d pages resident", r)
		}
		if err := populate(b, huge); err != nil {
			if err == unix.EINVAL {
				t.Logf("kernel without MADV_POPULATE_WRITE: %v", err)
				_ = unix.Munmap(b)
				return
			}
			t.Fatalf("populate (huge %v): %v", huge, err)
		}
		if err := mincore(b, vec); err != nil {
			t.Fatal(err)
		}
		if r := resident(vec); r != len(vec) {
			t.Fatalf("populate (huge %v): %d of %d pages resident", huge, r, len(vec))
		}
		if err := unix.Munmap(b); err != nil {
			t.Fatal(err)
		}
	}
}

// mincore is mincore(2) (x/sys/unix has no wrapper).
func mincore(b, vec []byte) error {
	_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if e != 0 {
		return e
	}
	return nil
}

func resident(vec []byte) int {
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}
