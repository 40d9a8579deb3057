//go:build !unix

package gitrepo

import "os"

// mapPack: packs are read in windows here (see mmap_unix.go).
func mapPack(f *os.File, size int64) ([]byte, bool) { return nil, false }

func unmapPack(b []byte) error { return nil }
