//go:build !windows

package find

// mmapPragma maps the live generation for reading (issue 19): a query in
// a new process starts with an empty page cache, and reading its pages
// from the mapping, not with pread into pages it allocates, made a warm
// prose query 0.87-0.94x the wall and 0.86-0.91x the CPU, with 18% fewer
// page faults (tools/pairbench, three runs of 31 pairs; 0.99x on the
// generated 10,000 pages, where the ranking, not the page reads, is the
// cost). SQLite maps at most the file's size, remaps when another
// connection grew it, and reads with pread beyond the limit or where
// mapping fails; writes still go through the WAL. The generations are
// never truncated by us (no VACUUM), and deleting one under a reader
// unlinks it, as before.
const mmapPragma = "mmap_size(1073741824)"
