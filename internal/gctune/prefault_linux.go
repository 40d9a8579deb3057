package gctune

import "golang.org/x/sys/unix"

// populate populates b writable (MADV_POPULATE_WRITE, Linux 5.14: an
// older kernel answers EINVAL and nothing is populated), in transparent
// huge pages when huge (MADV_HUGEPAGE; where they are off, 4 KiB pages)
// or else in 4 KiB pages (MADV_NOHUGEPAGE). The advice is only advice:
// its failure changes nothing.
func populate(b []byte, huge bool) error {
	if huge {
		_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	} else {
		_ = unix.Madvise(b, unix.MADV_NOHUGEPAGE)
	}
	return unix.Madvise(b, unix.MADV_POPULATE_WRITE)
}
