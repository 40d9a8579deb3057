package health

import (
	"github.com/git-echoes/git-echoes/gitvault"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// LockStatus is health.lock: what occupies .echoes-vault/lock when inspect
// or status runs (issue 11 items 2 and 3). The key is present only when
// something is there, so the reference's health keys and, with no lock,
// every byte of the report stay as echoes-conformance §18 defines them.
type LockStatus struct {
	// State is "held" (a lock file younger than the stale age), "stale"
	// (older: the next writer removes it, echoes-conformance §6) or
	// "invalid" (not a regular file: no writer can ever take the lock).
	State      string
	AgeSeconds int64
	Token      string // the file's content, stripped; "" when empty or not a file
	PID        int64  // from a well-formed token (echoes-conformance §6 step 2), else 0
	Problem    string // set for "invalid"
}

var lockTokenRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]+)-[0-9a-f]{16}$`) })

// lockStatus reports the lock without taking or changing it; nil when no
// lock is present.
func lockStatus(ws *gitvault.Workspace, t time.Time) *LockStatus {
	st, ok := fsx.InspectLock(ws.Lock, gitvault.LockOptions.Stale, t)
	if !ok {
		return nil
	}
	ls := &LockStatus{AgeSeconds: max(0, int64(t.Sub(st.ModTime)/time.Second))}
	switch {
	case st.Mode&fs.ModeSymlink != 0:
		ls.State, ls.Problem = "invalid", ".echoes-vault/lock is a dangling symbolic link, not a lock file"
	case !st.Mode.IsRegular():
		ls.State, ls.Problem = "invalid", ".echoes-vault/lock is "+fsx.DescribeType(st.Mode)+", not a lock file"
	case st.Stale:
		ls.State = "stale"
	default:
		ls.State = "held"
	}
	if ls.Problem != "" {
		ls.Problem += "; no EchoesVault writer can run until it is removed"
	}
	ls.Token = st.Token
	if m := lockTokenRE().FindStringSubmatch(st.Token); m != nil {
		ls.PID, _ = strconv.ParseInt(m[1], 10, 64)
	}
	return ls
}

// JSON renders health.lock.
func (l *LockStatus) JSON() pyjson.Value {
	token, pid := pyjson.NullValue(), pyjson.NullValue()
	if l.Token != "" {
		token = pyjson.Str(l.Token)
	}
	if l.PID > 0 {
		pid = pyjson.Int(l.PID)
	}
	return pyjson.ObjectValue(pyjson.NewObj().
		Set("state", pyjson.Str(l.State)).
		Set("ageSeconds", pyjson.Int(l.AgeSeconds)).
		Set("token", token).
		Set("pid", pid).
		Set("problem", optError(l.Problem)))
}

// cardLine is the status card's line about the lock.
func (l *LockStatus) cardLine() string {
	age := strconv.FormatInt(l.AgeSeconds, 10) + " s"
	switch l.State {
	case "held":
		owner := ""
		if l.PID > 0 {
			owner = " by process " + strconv.FormatInt(l.PID, 10)
		}
		return "Lock: held" + owner + " for " + age + "; writers wait until it is released or older than 60 s."
	case "stale":
		return "Lock: stale (" + age + " old); the next writer removes it."
	}
	return "Lock: " + l.Problem + "."
}

// irregularFiles lists, as "<workspace-relative path>: <type>", the managed
// files and pages that are FIFOs, sockets or devices (issue 11 item 4).
// Every engine read refuses them without blocking; this is where health
// says so (health.irregularFiles, present only when not empty). The lock
// has health.lock of its own.
func irregularFiles(ws *gitvault.Workspace) []string {
	var out []string
	check := func(p string) {
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice) != 0 {
			out = append(out, filepath.ToSlash(ws.Rel(p))+": "+fsx.DescribeType(fi.Mode().Type()))
		}
	}
	for _, p := range []string{ws.Marker, ws.Index, ws.Protocol, ws.VaultIgnore, ws.State, ws.Runtime, ws.RuntimeIgnore} {
		check(p)
	}
	if fsx.IsDirNoFollow(ws.Pages) {
		// Unsorted (out is sorted): os.ReadDir would sort every page name.
		if d, err := os.Open(ws.Pages); err == nil {
			entries, _ := d.ReadDir(-1)
			d.Close()
			for _, e := range entries {
				if e.Type()&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice) != 0 {
					check(filepath.Join(ws.Pages, e.Name()))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
