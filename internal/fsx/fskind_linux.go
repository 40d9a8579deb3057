package fsx

import "golang.org/x/sys/unix"

// EventlessFS names the file system holding path when it is one whose
// changes made elsewhere (another machine, a user-space server) produce no
// local change notification: network and FUSE file systems, where inotify
// only reports what this kernel itself did (issue 19). "" otherwise, and
// when the file system cannot be asked.
func EventlessFS(path string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return ""
	}
	switch uint32(st.Type) {
	case unix.NFS_SUPER_MAGIC:
		return "nfs"
	case unix.SMB_SUPER_MAGIC, unix.SMB2_SUPER_MAGIC, unix.CIFS_SUPER_MAGIC:
		return "smb"
	case unix.FUSE_SUPER_MAGIC:
		return "fuse"
	case unix.V9FS_MAGIC:
		return "9p"
	case unix.CEPH_SUPER_MAGIC:
		return "ceph"
	case unix.AFS_SUPER_MAGIC, unix.AFS_FS_MAGIC:
		return "afs"
	case unix.CODA_SUPER_MAGIC:
		return "coda"
	}
	return ""
}
