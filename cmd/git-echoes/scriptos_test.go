package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// What the scripts need to run on every OS, Windows (and Windows under
// wine) included.
//
// Conditions (scriptCondition):
//
//	[cansymlink]  creating a symbolic link really makes one. Windows needs
//	              Developer Mode or the SeCreateSymbolicLink privilege, and
//	              Wine's CreateSymbolicLink reports success and creates
//	              nothing, so testscript's own [symlink] (which only looks
//	              at the error) says yes under wine.
//	[casefold]    the temporary directory's file system (where the scripts'
//	              work directories are) takes names that differ only in case
//	              for the same file: Windows, and macOS by default.
//	[winegit]     git is the wine bridge of tools/winegit: the real Linux git
//	              behind it cannot start Windows programs (git echoes ...,
//	              hooks, merge drivers), prints Unix paths and reads no
//	              Windows paths from files. Set only under wine, so a real
//	              Windows runner runs what is skipped here.
//
// Commands:
//
//	ospaths FIELD...
//	    The last command's stdout holds JSON (one document or more). Each
//	    FIELD names a member by key, or by dotted keys ending its path
//	    (agentAdapters.guidesUpdated); @adapters stands for the five path
//	    lists of an agent-adapter result. These are the members the
//	    conformance pages give in OS separators. Every string value of such a
//	    member (its own, or its array's) must use the OS separator only: on
//	    Windows a "/" in it fails, which is how a path mixing "\" and "/" is
//	    caught. Then stdout becomes what it was, byte for byte, with just
//	    those values rewritten for comparison on any OS: the script's work
//	    directory at their start becomes $WORK, and the OS separator "/".
//	    stderr stays as it was. Every FIELD must occur. Members the pages
//	    give with "/" are not named, so they are compared as printed. Check
//	    the result with stdout, or cmp (not cmpenv: it holds $WORK literally).
//
//	setospath [-json|-slash] VAR PATH
//	    Set VAR to PATH (written with "/") in the OS's spelling, with "\" on
//	    Windows; -json: as it appears inside a JSON string ("\\"); -slash:
//	    with "/" throughout (C:/Users/... on Windows, for $WORK). For
//	    messages that embed a path: match them with ${VAR@R}.
//
//	gitonlypath
//	    Set PATH to the directory of git alone (looked up on PATH), for a git
//	    that finds no git-echoes: on Windows, where /usr/bin:/bin means
//	    nothing. It fails when git-echoes is in that directory too.
func init() {
	scriptCmds["gitonlypath"] = cmdGitOnlyPath
	scriptCmds["ospaths"] = cmdOSPaths
	scriptCmds["setospath"] = cmdSetOSPath
}

func cmdGitOnlyPath(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "gitonlypath")
	if len(args) != 0 {
		ts.Fatalf("usage: gitonlypath")
	}
	git, err := lookPathIn("git", ts.Getenv("PATH"))
	ts.Check(err)
	dir := filepath.Dir(git)
	if p, err := lookPathIn("git-echoes", dir); err == nil {
		ts.Fatalf("git-echoes is beside git: %s", p)
	}
	ts.Setenv("PATH", dir)
}

// lookPathIn is exec.LookPath on the list path.
func lookPathIn(prog, path string) (string, error) {
	exts := []string{""}
	if runtime.GOOS == "windows" {
		exts = []string{".exe", ".com", ".bat", ".cmd"}
	}
	for _, dir := range filepath.SplitList(path) {
		for _, ext := range exts {
			p := filepath.Join(dir, prog+ext)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%s not found on %s", prog, path)
}

func cmdSetOSPath(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "setospath")
	form := ""
	if len(args) > 0 && (args[0] == "-json" || args[0] == "-slash") {
		form, args = args[0], args[1:]
	}
	if len(args) != 2 {
		ts.Fatalf("usage: setospath [-json|-slash] VAR PATH")
	}
	p := filepath.FromSlash(args[1])
	switch form {
	case "-json":
		q := pyjson.Quote(p)
		p = q[1 : len(q)-1]
	case "-slash":
		p = filepath.ToSlash(p)
	}
	ts.Setenv(args[0], p)
}

func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "cansymlink":
		return canSymlink(), nil
	case "winegit":
		return underWineGit(), nil
	case "casefold":
		return caseFolding(), nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

var (
	canSymlinkOnce sync.Once
	canSymlinkOK   bool
)

// canSymlink creates a link and looks at what is on disk: the error alone
// is not enough under wine (see [cansymlink]).
func canSymlink() bool {
	canSymlinkOnce.Do(func() {
		dir, err := os.MkdirTemp("", "git-echoes-symlink")
		if err != nil {
			return
		}
		defer os.RemoveAll(dir)
		if err := os.WriteFile(filepath.Join(dir, "target"), nil, 0o644); err != nil {
			return
		}
		link := filepath.Join(dir, "link")
		if os.Symlink("target", link) != nil {
			return
		}
		fi, err := os.Lstat(link)
		canSymlinkOK = err == nil && fi.Mode()&fs.ModeSymlink != 0
	})
	return canSymlinkOK
}

var (
	caseFoldingOnce sync.Once
	caseFoldingOK   bool
)

// caseFolding creates a file and looks for it under its upper-case name.
func caseFolding() bool {
	caseFoldingOnce.Do(func() {
		dir, err := os.MkdirTemp("", "git-echoes-case")
		if err != nil {
			return
		}
		defer os.RemoveAll(dir)
		if err := os.WriteFile(filepath.Join(dir, "name"), nil, 0o644); err != nil {
			return
		}
		_, err = os.Stat(filepath.Join(dir, "NAME"))
		caseFoldingOK = err == nil
	})
	return caseFoldingOK
}

// underWineGit reports whether git is the wine bridge (scripts/wine/run-test.sh
// sets its server's address for the test binary).
func underWineGit() bool {
	return runtime.GOOS == "windows" && os.Getenv(testenv.WinegitSpoolEnv) != ""
}

// symlinkOrSkip makes a symbolic link for a Go test, or skips it where links
// cannot be made (see [cansymlink]); any other failure fails the test.
func symlinkOrSkip(t interface {
	Helper()
	Fatal(...any)
	Skip(...any)
}, oldname, newname string) {
	t.Helper()
	if !canSymlink() {
		t.Skip("cannot create symbolic links here (Windows without Developer Mode or the privilege; Wine reports success and creates nothing)")
	}
	if err := os.Symlink(oldname, newname); err != nil {
		t.Fatal(err)
	}
}

func cmdOSPaths(ts *testscript.TestScript, neg bool, args []string) {
	noNeg(ts, neg, "ospaths")
	if len(args) < 1 {
		ts.Fatalf("usage: ospaths FIELD...")
	}
	stdout, stderr := ts.ReadFile("stdout"), ts.ReadFile("stderr")
	out, err := osPaths(stdout, ts.Getenv("WORK"), os.PathSeparator, args)
	if err != nil {
		ts.Fatalf("ospaths: %v", err)
	}
	// What a builtin writes becomes the stdout and stderr the next
	// commands check; stderr is kept as the command left it.
	fmt.Fprint(ts.Stdout(), out)
	fmt.Fprint(ts.Stderr(), stderr)
}

// osPaths does the work of ospaths for separator sep (a parameter, so that
// its own test covers both kinds of OS on any one).
func osPaths(data, work string, sep rune, fields []string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var stack []frame
	fields = expandFields(fields)
	seen := map[string]bool{}
	var out strings.Builder
	last := 0 // bytes of data copied to out
	for {
		prev := int(dec.InputOffset())
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if n := len(stack); n > 0 && stack[n-1].object {
					stack[n-1].wantKey = true
				}
				stack = append(stack, frame{object: d == '{', wantKey: d == '{'})
			default:
				stack = stack[:len(stack)-1]
				if n := len(stack); n > 0 && stack[n-1].object {
					stack[n-1].wantKey = true
				}
			}
			continue
		}
		n := len(stack)
		if n > 0 && stack[n-1].object && stack[n-1].wantKey {
			stack[n-1].key, stack[n-1].wantKey = tok.(string), false
			if f := matchField(keyPath(stack), fields); f != "" {
				seen[f] = true
			}
			continue
		}
		if n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
		s, isString := tok.(string)
		if !isString {
			continue
		}
		// A string directly in an array belongs to the member holding the
		// array (nested arrays included).
		field := matchField(keyPath(stack), fields)
		if field == "" {
			continue
		}
		end := int(dec.InputOffset())
		start := prev + strings.IndexByte(data[prev:end], '"')
		if sep == '\\' && strings.Contains(s, "/") {
			return "", fmt.Errorf("%s: %s is not in Windows separators", field, pyjson.Quote(s))
		}
		out.WriteString(data[last:start])
		out.WriteString(pyjson.Quote(slashPath(s, work, sep)))
		last = end
	}
	out.WriteString(data[last:])
	var missing []string
	for _, f := range fields {
		if !seen[f] {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("no member %s", strings.Join(missing, ", "))
	}
	return out.String(), nil
}

// frame is an object or array being read.
type frame struct {
	object  bool
	key     string // object: the member being read
	wantKey bool   // object: the next string is a key
}

// keyPath lists the keys leading to the value being read.
func keyPath(stack []frame) []string {
	var keys []string
	for _, f := range stack {
		if f.object {
			keys = append(keys, f.key)
		}
	}
	return keys
}

// adapterPathFields are the path lists of an agent-adapter result
// (agentAdapters in init, upgrade and migrate; the whole result of
// configure-agents): workspace-relative, OS separators
// (echoes-conformance §16.2).
var adapterPathFields = []string{"guidesUpdated", "skillsUpdated", "commandsUpdated", "legacySkillsRedirected", "adapterConflicts"}

// expandFields replaces @adapters by adapterPathFields.
func expandFields(fields []string) []string {
	var out []string
	for _, f := range fields {
		if f == "@adapters" {
			out = append(out, adapterPathFields...)
		} else {
			out = append(out, f)
		}
	}
	return out
}

// matchField returns the field whose dotted keys end keys.
func matchField(keys, fields []string) string {
	path := strings.Join(keys, ".")
	for _, f := range fields {
		if path == f || strings.HasSuffix(path, "."+f) {
			return f
		}
	}
	return ""
}

// slashPath rewrites an OS path for comparison: work at its start becomes
// $WORK, then each sep becomes "/".
func slashPath(p, work string, sep rune) string {
	if work != "" && (p == work || strings.HasPrefix(p, work+string(sep))) {
		p = "$WORK" + p[len(work):]
	}
	if sep != '/' {
		p = strings.ReplaceAll(p, string(sep), "/")
	}
	return p
}

func TestOSPaths(t *testing.T) {
	doc := `{
  "page": "W:\\w\\EchoesVault\\pages\\a.md",
  "file": "pages\\b.md",
  "other": "x\\y",
  "agentAdapters": {
    "guidesUpdated": [
      "AGENTS.md",
      ".claude\\skills\\SKILL.md"
    ],
    "adapterConflicts": []
  },
  "health": {"guidesUpdated": "kept\\as-is", "n": 1, "nested": [["d\\e"]]}
}
`
	got, err := osPaths(doc, `W:\w`, '\\', []string{"page", "file", "agentAdapters.guidesUpdated", "nested"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "page": "$WORK/EchoesVault/pages/a.md",
  "file": "pages/b.md",
  "other": "x\\y",
  "agentAdapters": {
    "guidesUpdated": [
      "AGENTS.md",
      ".claude/skills/SKILL.md"
    ],
    "adapterConflicts": []
  },
  "health": {"guidesUpdated": "kept\\as-is", "n": 1, "nested": [["d/e"]]}
}
`
	if got != want {
		t.Errorf("windows:\n%s\nwant\n%s", got, want)
	}
	// A "/" in a field given in OS separators is wrong on Windows.
	if _, err := osPaths(`{"page": "W:\\w\\EchoesVault/pages/a.md"}`, `W:\w`, '\\', []string{"page"}); err == nil || !strings.Contains(err.Error(), "not in Windows separators") {
		t.Errorf("mixed separators: %v", err)
	}
	// Unix: the work directory is replaced, a backslash is a name character.
	got, err = osPaths("{\"page\": \"/w/EchoesVault/a\\\\b.md\", \"x\": \"/w/y\"}\n{\"page\": \"/wx/c\"}\n", "/w", '/', []string{"page"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"page\": \"$WORK/EchoesVault/a\\\\b.md\", \"x\": \"/w/y\"}\n{\"page\": \"/wx/c\"}\n"; got != want {
		t.Errorf("unix: %q, want %q", got, want)
	}
	// Every field must be there (a misspelt one would check nothing).
	if _, err := osPaths(`{"page": "/w/a"}`, "/w", '/', []string{"page", "dailyLog"}); err == nil || !strings.Contains(err.Error(), "dailyLog") {
		t.Errorf("missing field: %v", err)
	}
	// A member that is present counts, whatever its value; @adapters names
	// the adapter result's five lists.
	got, err = osPaths(`{"guidesUpdated": [], "skillsUpdated": ["a\\b"], "commandsUpdated": [], "legacySkillsRedirected": null, "adapterConflicts": []}`, `W:\w`, '\\', []string{"@adapters"})
	if want := `{"guidesUpdated": [], "skillsUpdated": ["a/b"], "commandsUpdated": [], "legacySkillsRedirected": null, "adapterConflicts": []}`; err != nil || got != want {
		t.Errorf("@adapters: %q %v, want %q", got, err, want)
	}
	if _, err := osPaths(`not json`, "/w", '/', []string{"page"}); err == nil {
		t.Error("not JSON: no error")
	}
}
