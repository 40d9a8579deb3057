package find

// mmapPragma is SQLite's default, no mapping: Windows refuses to delete a
// mapped file (a sharing violation, seen under wine64), and the index is
// a cache that may be deleted while a process reads it.
const mmapPragma = "mmap_size(0)"
