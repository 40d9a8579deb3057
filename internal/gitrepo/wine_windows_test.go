package gitrepo

import (
	"syscall"
	"unsafe"
)

var (
	kernel32        = syscall.NewLazyDLL("kernel32.dll")
	procDosFileName = kernel32.NewProc("wine_get_dos_file_name")
	procUnixName    = kernel32.NewProc("wine_get_unix_file_name")
	procProcessHeap = kernel32.NewProc("GetProcessHeap")
	procHeapFree    = kernel32.NewProc("HeapFree")
)

// dosPath asks Wine which Windows path a Unix path maps to (the deepest
// drive holding it: C: for the prefix's drive_c). It reports false outside
// Wine, where kernel32 has no wine_get_dos_file_name.
func dosPath(unix string) (string, bool) {
	if procDosFileName.Find() != nil {
		return "", false
	}
	b, err := syscall.BytePtrFromString(unix)
	if err != nil {
		return "", false
	}
	r, _, _ := procDosFileName.Call(uintptr(unsafe.Pointer(b)))
	if r == 0 {
		return "", false
	}
	// A NUL-terminated UTF-16 string Wine allocated on the process heap.
	w := *(**uint16)(unsafe.Pointer(&r))
	n := 0
	for *(*uint16)(unsafe.Add(unsafe.Pointer(w), 2*n)) != 0 {
		n++
	}
	s := syscall.UTF16ToString(unsafe.Slice(w, n))
	if heap, _, _ := procProcessHeap.Call(); heap != 0 {
		procHeapFree.Call(heap, 0, r)
	}
	return s, true
}

// unixPath asks Wine which Unix path a Windows path maps to (through the
// prefix's dosdevices links, as tools/winegit translates arguments). It
// reports false outside Wine.
func unixPath(p string) (string, bool) {
	if procUnixName.Find() != nil {
		return "", false
	}
	w, err := syscall.UTF16PtrFromString(p)
	if err != nil {
		return "", false
	}
	r, _, _ := procUnixName.Call(uintptr(unsafe.Pointer(w)))
	if r == 0 {
		return "", false
	}
	// A NUL-terminated byte string Wine allocated on the process heap.
	b := *(**byte)(unsafe.Pointer(&r))
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(b), n)) != 0 {
		n++
	}
	s := string(unsafe.Slice(b, n))
	if heap, _, _ := procProcessHeap.Call(); heap != 0 {
		procHeapFree.Call(heap, 0, r)
	}
	return s, true
}
