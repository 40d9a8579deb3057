package main

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

var procUnixName = windows.NewLazySystemDLL("kernel32.dll").NewProc("wine_get_unix_file_name")

// unixPath asks Wine which Unix path a Windows path maps to. The result is
// allocated by Wine on the process heap; a few bytes per call are left to
// the process's exit.
func unixPath(p string) (string, bool) {
	if procUnixName.Find() != nil {
		return "", false
	}
	w, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return "", false
	}
	r, _, _ := procUnixName.Call(uintptr(unsafe.Pointer(w)))
	if r == 0 {
		return "", false
	}
	return windows.BytePtrToString(*(**byte)(unsafe.Pointer(&r))), true
}
