//go:build unix

package gitrepo

import (
	"os"
	"syscall"
)

// mapPack maps a pack file read-only, as git does (core.packedGitWindowSize
// on 64-bit systems maps whole packs): reading through the mapping costs no
// copy and no fresh memory, where reading into windows cost a copy of most
// of the pack and a page fault per page of the buffers on a history walk.
// A pack is never rewritten in place (it is named by its checksum), and an
// unlinked pack stays mapped. ok is false when the file cannot be mapped;
// the caller then reads windows.
func mapPack(f *os.File, size int64) (data []byte, ok bool) {
	if size <= 0 || int64(int(size)) != size {
		return nil, false
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, false
	}
	return b, true
}

func unmapPack(b []byte) error { return syscall.Munmap(b) }
