package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// Custom testscript commands for the engine_*.txtar scenarios.
//
//	fail2 MSG ARGS...      run git-echoes ARGS: exit 2, empty stdout, stderr is
//	                       exactly {"ok": false, "error": MSG} in compact JSON
//	usage2 ARGS...         run git-echoes ARGS: exit 2, empty stdout, usage
//	                       text (not JSON) on stderr
//	sha256 FILE HEX        the SHA-256 of FILE's bytes is HEX
//	mtime FILE OFFSET      set FILE's mtime to now+OFFSET (for example -61s)
//	writef FILE TEXT       write TEXT to FILE; both take Go escapes (\r, \xff, \u0301)
//	snapshot DIR NAME      record every entry below DIR (bytes, mode, link target)
//	unchanged DIR NAME     DIR is exactly as recorded: nothing added, removed or changed
//	countfiles DIR SUFFIX N  DIR holds exactly N regular files named *SUFFIX (recursively)
//	exitcode N ARGS...     run git-echoes ARGS: the exit status is exactly N
//	                       (stdout and stderr are kept for the next checks)
func init() {
	scriptCmds["fail2"] = cmdFail2
	scriptCmds["usage2"] = cmdUsage2
	scriptCmds["sha256"] = cmdSHA256
	scriptCmds["mtime"] = cmdMtime
	scriptCmds["writef"] = cmdWritef
	scriptCmds["snapshot"] = cmdSnapshot
	scriptCmds["unchanged"] = cmdUnchanged
	scriptCmds["countfiles"] = cmdCountFiles
	scriptCmds["exitcode"] = cmdExitCode
}

func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "exitcode")
	if len(args) < 1 {
		ts.Fatalf("usage: exitcode N ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	if code := execEchoes(ts, args[1:]); code != want {
		ts.Fatalf("exit status %d, want %d", code, want)
	}
}

func noNeg(ts *testscript.TestScript, neg bool, name string) {
	if neg {
		ts.Fatalf("%s does not support negation", name)
	}
}

// execEchoes runs the binary and returns its exit code.
func execEchoes(ts *testscript.TestScript, args []string) int {
	err := ts.Exec("git-echoes", args...)
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	ts.Fatalf("git-echoes: %v", err)
	return -1
}

func cmdFail2(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "fail2")
	if len(args) < 1 {
		ts.Fatalf("usage: fail2 MSG ARGS...")
	}
	code := execEchoes(ts, args[1:])
	if code != 2 {
		ts.Fatalf("exit code %d, want 2", code)
	}
	if out := ts.ReadFile("stdout"); out != "" {
		ts.Fatalf("stdout not empty: %q", out)
	}
	want := pyjson.Compact(pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(false)).Set("error", pyjson.Str(args[0])))) + "\n"
	if got := ts.ReadFile("stderr"); got != want {
		ts.Fatalf("stderr:\n got %q\nwant %q", got, want)
	}
}

func cmdUsage2(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "usage2")
	code := execEchoes(ts, args)
	if code != 2 {
		ts.Fatalf("exit code %d, want 2", code)
	}
	if out := ts.ReadFile("stdout"); out != "" {
		ts.Fatalf("stdout not empty: %q", out)
	}
	errText := ts.ReadFile("stderr")
	if !strings.HasPrefix(errText, "usage: ") || strings.HasPrefix(errText, "{") || !strings.Contains(errText, "error: ") {
		ts.Fatalf("stderr is not usage text: %q", errText)
	}
}

func cmdSHA256(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: sha256 FILE HEX")
	}
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	sum := sha256.Sum256(data)
	got := hex.EncodeToString(sum[:])
	if (got == args[1]) == neg {
		ts.Fatalf("sha256 of %s is %s (want %s%s)", args[0], got, map[bool]string{true: "not ", false: ""}[neg], args[1])
	}
}

func cmdMtime(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "mtime")
	if len(args) != 2 {
		ts.Fatalf("usage: mtime FILE OFFSET")
	}
	d, err := time.ParseDuration(args[1])
	ts.Check(err)
	t := time.Now().Add(d)
	ts.Check(os.Chtimes(ts.MkAbs(args[0]), t, t))
}

func goUnquote(ts *testscript.TestScript, s string) string {
	u, err := strconv.Unquote(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
	if err != nil {
		ts.Fatalf("bad escape in %q: %v", s, err)
	}
	return u
}

func cmdWritef(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "writef")
	if len(args) != 2 {
		ts.Fatalf("usage: writef FILE TEXT")
	}
	p := ts.MkAbs(goUnquote(ts, args[0]))
	ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
	ts.Check(os.WriteFile(p, []byte(goUnquote(ts, args[1])), 0o644))
}

// snapshots is keyed by script and name.
var snapshots sync.Map

type snapKey struct {
	ts   *testscript.TestScript
	name string
}

func takeSnapshot(ts *testscript.TestScript, dir string) map[string]string {
	root := ts.MkAbs(dir)
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && filepath.ToSlash(rel) == ".echoes-vault/cache" {
			return filepath.SkipDir // derived local caches, as in treehash
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = "symlink " + target
		case fi.IsDir():
			out[rel] = fmt.Sprintf("dir %v", fi.Mode().Perm())
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			out[rel] = fmt.Sprintf("file %v %x", fi.Mode().Perm(), sum)
		}
		return nil
	})
	ts.Check(err)
	return out
}

func cmdSnapshot(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "snapshot")
	if len(args) != 2 {
		ts.Fatalf("usage: snapshot DIR NAME")
	}
	snapshots.Store(snapKey{ts, args[1]}, takeSnapshot(ts, args[0]))
}

func cmdUnchanged(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "unchanged")
	if len(args) != 2 {
		ts.Fatalf("usage: unchanged DIR NAME")
	}
	v, ok := snapshots.Load(snapKey{ts, args[1]})
	if !ok {
		ts.Fatalf("no snapshot named %s", args[1])
	}
	before := v.(map[string]string)
	after := takeSnapshot(ts, args[0])
	var diffs []string
	for k, b := range before {
		if a, ok := after[k]; !ok {
			diffs = append(diffs, "removed "+k)
		} else if a != b {
			diffs = append(diffs, "changed "+k+": "+b+" -> "+a)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			diffs = append(diffs, "added "+k)
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		ts.Fatalf("%s changed since snapshot %s:\n%s", args[0], args[1], strings.Join(diffs, "\n"))
	}
}

func cmdCountFiles(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "countfiles")
	if len(args) != 3 {
		ts.Fatalf("usage: countfiles DIR SUFFIX N")
	}
	want, err := strconv.Atoi(args[2])
	ts.Check(err)
	n := 0
	ts.Check(filepath.WalkDir(ts.MkAbs(args[0]), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), args[1]) {
			n++
		}
		return nil
	}))
	if n != want {
		ts.Fatalf("%s holds %d *%s files, want %d", args[0], n, args[1], want)
	}
}
