package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleTempAge is how old one of our temporary files must be before a
// writer holding the lock removes it as the leftover of a crashed write
// (issue 11 item 1). A live write keeps its temporary file for
// milliseconds; a writer whose lock was taken over as stale after 60 s
// (echoes-conformance §6 Quirk) may still be finishing one, so the margin is
// ten times that.
const StaleTempAge = 10 * time.Minute

// IsTempName reports whether name is exactly a temporary name this module
// creates: TempName's ".<base>.<8 chars from [a-z0-9_]>.tmp"
// (echoes-conformance §5 step 3) or the memory vault's
// ".ecc-memory-<pid>-<uuid>.tmp". Nothing else matches, so a user's own
// ".notes.tmp" is never taken for ours.
func IsTempName(name string) bool {
	return isAtomicTempName(name) || isMemoryTempName(name)
}

func isAtomicTempName(name string) bool {
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".tmp") {
		return false
	}
	core := name[1 : len(name)-len(".tmp")] // "<base>.<8 chars>"
	if len(core) < tempRandLen+2 || core[len(core)-tempRandLen-1] != '.' {
		return false
	}
	for _, c := range []byte(core[len(core)-tempRandLen:]) {
		if strings.IndexByte(tempAlphabet, c) < 0 {
			return false
		}
	}
	return true
}

func isMemoryTempName(name string) bool {
	const prefix, suffix = ".ecc-memory-", ".tmp"
	if !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
		return false
	}
	rest := name[len(prefix) : len(name)-len(suffix)] // "<pid>-<uuid>"
	pid, uuid, ok := strings.Cut(rest, "-")
	if !ok || pid == "" || strings.Trim(pid, "0123456789") != "" || len(uuid) != 36 {
		return false
	}
	for i, c := range []byte(uuid) {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return true
}

// RemoveStaleTemps removes from dir (not recursively) every regular,
// non-symlink file whose name IsTempName and whose modification time is more
// than age before now, and returns the removed names. Only the caller knows
// that no live writer can own such a file: EchoesVault writers call it under
// the shared lock (echoes-conformance §6); the memory vault, which has no
// lock, relies on age alone (gitvault/memory publishMemory says why). A missing directory, or one that is a symlink,
// is left alone; entries that vanish meanwhile are skipped.
func RemoveStaleTemps(dir string, age time.Duration, now time.Time) ([]string, error) {
	if !IsDirNoFollow(dir) {
		return nil, nil
	}
	// Names only, unsorted: a writer runs this on every command, and pages/
	// can hold tens of thousands of entries, of which almost none match.
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, err
	}
	return RemoveStaleTempNames(dir, names, age, now)
}

// RemoveStaleTempNames is RemoveStaleTemps over names the caller has
// already listed from dir (a writer that lists pages/ anyway need not read
// 100,000 names twice, issue 19). Names that are not IsTempName are skipped;
// each candidate is checked with Lstat as RemoveStaleTemps does.
func RemoveStaleTempNames(dir string, names []string, age time.Duration, now time.Time) ([]string, error) {
	var removed []string
	var firstErr error
	for _, name := range names {
		if !IsTempName(name) {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) <= age {
			continue
		}
		if err := removeFile(p); err != nil {
			if !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
				firstErr = err
			}
			continue
		}
		removed = append(removed, name)
	}
	return removed, firstErr
}
