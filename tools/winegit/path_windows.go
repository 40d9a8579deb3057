package main

import (
	"syscall"
	"unsafe"
)

// Only syscall, not golang.org/x/sys/windows: that package imports net,
// and git.exe must not load Winsock (see the package doc).
var procUnixName = syscall.NewLazyDLL("kernel32.dll").NewProc("wine_get_unix_file_name")

// unixPath asks Wine which Unix path a Windows path maps to. The result is
// a NUL-terminated string allocated by Wine on the process heap; a few
// bytes per call are left to the process's exit.
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
	return cString(*(**byte)(unsafe.Pointer(&r))), true
}

// cString copies the NUL-terminated bytes at p.
func cString(p *byte) string {
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
