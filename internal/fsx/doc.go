// Package fsx holds the low-level file-system primitives of git-echoes:
// atomic replacement writes (echoes-conformance §5), create-only writes (protocol §9 daily
// entries, ecc-conformance §9.1), guarded no-follow reads with identity
// checks (ecc-conformance §11.3), Python-compatible path resolution and
// confinement (echoes-conformance §3), the shared .echoes-vault/lock (echoes-conformance §6) interoperable with
// the reference Python engine, and Git's lockfile protocol for the files
// Git owns. It is the only package of the module that makes file-system
// system calls; it knows nothing about the meaning of vault files.
//
// # Files per OS
//
//   - dir_unix.go (linux, darwin, freebsd): descriptor-relative reads
//     (openat, fstatat) through golang.org/x/sys/unix.
//   - dir_portable.go: the same operations on paths with os package
//     calls, for Unix systems without those calls, and selected on any Unix
//     by the echoes_portable build tag (`go test -tags echoes_portable`), so
//     the fallback is exercised for real on Linux.
//   - rename_linux.go: renameat2(RENAME_NOREPLACE); rename_darwin.go:
//     renamex_np(RENAME_EXCL); rename_portable.go (FreeBSD, portable): none.
//   - umask_procfs.go (Linux): the umask from /proc/self/status;
//     umask_unix.go (macOS, FreeBSD, portable): read once at initialization.
//   - sys_windows.go, dir_windows.go, path_windows.go, lockio_windows.go:
//     golang.org/x/sys/windows.
//
// # Guarantees per OS
//
// Atomic replace (WriteFileAtomic). Linux, macOS, FreeBSD: a 0600
// temporary file in the target's directory, fsync, the replaced file's
// permission bits (new files: 0644 minus the umask), rename(2), directory
// fsync. Windows: the same with MoveFileEx(MOVEFILE_REPLACE_EXISTING |
// MOVEFILE_WRITE_THROUGH). Windows cannot replace a read-only file or a
// file another process holds open (even one sharing delete access): after
// about half a second of retries the write fails and the target is
// unchanged. Permission bits on Windows are only the read-only attribute.
// Every OS: a symlinked target is refused (Windows: also a junction or any
// other name-surrogate reparse point), and no temporary file survives a
// failure.
//
// Create-only write (CreateFileExclusive, Publish). Never replaces
// anything, a dangling symlink included. Linux, macOS, FreeBSD: link(2) of
// a complete, fsynced temporary file, then directory fsync; without hard
// links, an atomic no-replace rename (Linux renameat2 RENAME_NOREPLACE,
// macOS renamex_np RENAME_EXCL). FreeBSD and the portable build have no
// such rename: on a file system without hard links Publish refuses
// (ENOTSUP), and CreateFileExclusive falls back to an O_EXCL create of the
// name itself (never overwrites, but a reader may see it partly written).
// Windows: MoveFileEx without MOVEFILE_REPLACE_EXISTING, with
// MOVEFILE_WRITE_THROUGH, on every file system (FAT included).
//
// Directory fsync (SyncDir). Linux, macOS, FreeBSD: fsync of the
// directory; EINVAL, ENOTSUP/EOPNOTSUPP and EBADF (file systems that cannot
// do it) are ignored, the one list of such errors. Windows cannot fsync a
// directory: SyncDir does nothing, and the safe side is taken instead:
// every rename is MOVEFILE_WRITE_THROUGH and file contents are flushed
// before they are renamed into place.
//
// No-follow reads (OpenNoFollow, Dir.OpenNoFollow, LstatIdent). Linux,
// macOS: O_NOFOLLOW|O_NONBLOCK, a symlink fails with ELOOP; FreeBSD the
// same with EMLINK. Windows: FILE_FLAG_OPEN_REPARSE_POINT; a symlink,
// junction or other name-surrogate reparse point is refused with ELOOP;
// handles share delete access, so reading never blocks another process's
// removal. Identity (Ident.SameFile) is device and inode on POSIX systems,
// volume serial number and file index on Windows; Windows has no FIFOs.
//
// Stamps (LstatStamp, Dir.Stamp), what caches keyed by file identity
// compare. Every OS: type, size, modification time in nanoseconds, a final
// symlink not followed. Linux, macOS, FreeBSD: st_ctime and device/inode
// from lstat/fstatat. Windows: ChangeTime (FILE_BASIC_INFO) and volume
// serial number/file index, from one handle opened for attributes.
//
// The lock (echoes-conformance §6). O_CREAT|O_EXCL|O_WRONLY (Windows: CREATE_NEW) on every OS,
// interoperable with the reference's os.open. Windows: the lock's own
// reads and mtime refreshes share delete access; removals retry while
// another process (the reference reading its token) holds the file open
// without sharing delete; a stale lock that cannot be removed yet is
// treated as live; a lock whose deletion is pending (CreateFile answers
// ERROR_ACCESS_DENIED) counts as held.
//
// Umask. Linux: /proc/self/status, read once, never changed. macOS,
// FreeBSD: umask(2) set to 0077 and restored at once during package
// initialization, before any goroutine of the program can create a file.
// Windows has none: new files are writable (Go's 0644).
//
// Path resolution (ResolvePath) and confinement (Within). POSIX systems:
// Python's posixpath.realpath(strict=False), component by component, with
// exact byte comparison. Windows: ntpath.realpath(strict=False): lexical
// normalization first, then GetFinalPathNameByHandle on the longest
// existing prefix (symlinks and junctions followed, on-disk case and long
// names), drive letters and UNC paths, `\` separators, and Within compares
// case-insensitively. A workspace under a symlinked parent (macOS /var ->
// /private/var) resolves to its real path; callers compare resolved paths
// on both sides.
package fsx
