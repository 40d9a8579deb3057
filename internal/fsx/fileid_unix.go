//go:build unix

package fsx

import (
	"io/fs"
	"syscall"
)

func inodeOf(_ string, fi fs.FileInfo) (dev, ino uint64, err error) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino), nil
	}
	return 0, 0, nil
}
