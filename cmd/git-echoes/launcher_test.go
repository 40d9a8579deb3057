package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// Custom commands of the adapter, migration and launcher scripts.
func init() {
	scriptCmds["treehash"] = cmdTreeHash
	scriptCmds["findpython"] = cmdFindPython
	scriptCmds["concat"] = cmdConcat
}

// concat OUT IN... writes the concatenation of the IN files to OUT, to build
// expected files from a golden managed block and the user's own text.
func cmdConcat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: concat OUT IN...")
	}
	var out []byte
	for _, in := range args[1:] {
		data, err := os.ReadFile(ts.MkAbs(in))
		ts.Check(err)
		out = append(out, data...)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), out, 0o644))
}

// treehash DIR FILE writes one line per entry below DIR (mode, SHA-256 or
// link target, relative path), sorted, to FILE. Comparing two listings
// proves that a command changed no byte, mode or symlink, which a script
// cannot show file by file. The private HOME (.home), Git's own directory
// and listing files (*.tree) are left out. Paths are written with "/" on
// every OS, so a script greps one listing everywhere; the modes are the
// OS's own (Windows has no Unix permission bits: guard those greps [unix]).
func cmdTreeHash(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: treehash DIR FILE")
	}
	root := ts.MkAbs(args[0])
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		// .echoes-vault/cache is, outside Git, what .git/echoes is inside:
		// derived local caches, never part of the tree a command promises
		// (gitvault/pagecache_test.go checks when they are written).
		if d.IsDir() && (rel == ".home" || d.Name() == ".git" || rel == ".echoes-vault/cache") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(rel, ".tree") {
			return nil
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
			lines = append(lines, fmt.Sprintf("link %s -> %s", rel, target))
		case fi.IsDir():
			lines = append(lines, fmt.Sprintf("dir %s", rel))
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			lines = append(lines, fmt.Sprintf("%v %s %s", fi.Mode().Perm(), hex.EncodeToString(sum[:]), rel))
		}
		return nil
	})
	ts.Check(err)
	sort.Strings(lines)
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

// findpython sets PYTHON3 to the absolute path of the real interpreter and
// GIT_ECHOES to the git-echoes program testscript put on PATH, so a script
// can run the launcher with a PATH that lacks git-echoes (version managers'
// python3 shims need PATH themselves).
func cmdFindPython(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: findpython")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		ts.Fatalf("python3 is not installed (guard the script with [!exec:python3] skip)")
	}
	out, err := exec.Command(py, "-c", "import sys; print(sys.executable)").Output()
	ts.Check(err)
	ts.Setenv("PYTHON3", strings.TrimSpace(string(out)))
	bin, err := exec.LookPath("git-echoes")
	ts.Check(err)
	abs, err := filepath.Abs(bin)
	ts.Check(err)
	ts.Setenv("GIT_ECHOES", abs)
}
