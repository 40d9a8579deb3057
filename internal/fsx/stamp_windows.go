package fsx

import (
	"io/fs"
	"unsafe"

	"golang.org/x/sys/windows"
)

// fileBasicInfo is FILE_BASIC_INFO.
type fileBasicInfo struct {
	CreationTime, LastAccessTime, LastWriteTime, ChangeTime int64
	FileAttributes                                          uint32
	_                                                       uint32
}

// LstatStamp returns the Stamp of path itself (a final symlink or junction
// is reported, not followed): one handle opened for attributes only, its
// identity (GetFileInformationByHandle) and its change time (FILE_BASIC_INFO;
// 0 where the file system does not report one).
func LstatStamp(path string) (Stamp, error) {
	h, err := openHandle(path, windows.FILE_READ_ATTRIBUTES, windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		return Stamp{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	defer windows.CloseHandle(h)
	id, err := identOfHandle(h)
	if err != nil {
		return Stamp{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	var bi fileBasicInfo
	if err := windows.GetFileInformationByHandleEx(h, windows.FileBasicInfo, (*byte)(unsafe.Pointer(&bi)), uint32(unsafe.Sizeof(bi))); err != nil {
		return Stamp{}, &fs.PathError{Op: "lstat", Path: path, Err: err}
	}
	return Stamp{Mode: id.Mode, Size: id.Size, Mtime: filetimeNano(bi.LastWriteTime), Ctime: filetimeNano(bi.ChangeTime),
		Dev: id.dev, Ino: id.ino}, nil
}

// filetimeNano converts a FILETIME (100 ns since 1601) to Unix nanoseconds;
// 0 stays 0 (not reported).
func filetimeNano(ft int64) int64 {
	if ft == 0 {
		return 0
	}
	return (ft - 116444736000000000) * 100
}
