//go:build !windows

package fsx

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// resolvedTempDir returns a t.TempDir with its own symlinks (if any) resolved.
func resolvedTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// pathFixture builds:
//
//	root/a/b/c.md        regular file
//	root/link   -> a/b   (relative symlink to a directory)
//	root/abs    -> root/a (absolute symlink)
//	root/chain1 -> chain2 -> link
//	root/filelink -> a/b/c.md
//	root/loop1 <-> root/loop2, root/self -> self
//	root/dangling -> nowhere/x
func pathFixture(t *testing.T) string {
	t.Helper()
	root := resolvedTempDir(t)
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "a", "b", "c.md"), []byte("c"), 0o644)
	links := map[string]string{
		"link":     "a/b",
		"abs":      filepath.Join(root, "a"),
		"chain1":   "chain2",
		"chain2":   "link",
		"filelink": "a/b/c.md",
		"loop1":    "loop2",
		"loop2":    "loop1",
		"self":     "self",
		"dangling": "nowhere/x",
		"up":       "..",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

var resolveCases = []struct{ in, want string }{
	{"", ""},
	{"a/b/c.md", "a/b/c.md"},
	{"a/b/missing/deeper.md", "a/b/missing/deeper.md"},
	{"missing/x/../y", "missing/y"},
	{"./a//b/./c.md", "a/b/c.md"},
	{"link", "a/b"},
	{"link/c.md", "a/b/c.md"},
	{"link/new/file.md", "a/b/new/file.md"},
	{"link/../x", "a/x"}, // the symlink is resolved before ".."
	{"link/..", "a"},
	{"abs/b/c.md", "a/b/c.md"},
	{"chain1/c.md", "a/b/c.md"},
	{"chain1/../../z", "z"},
	{"filelink", "a/b/c.md"},
	{"a/b/c.md/below", "a/b/c.md/below"}, // ENOTDIR is treated as non-existing
	{"dangling", "nowhere/x"},
	{"dangling/../y", "nowhere/y"},
	{"up/" + "PLACEHOLDER", ""},
}

func TestResolvePath(t *testing.T) {
	root := pathFixture(t)
	parent := filepath.Dir(root)
	for _, c := range resolveCases {
		if strings.HasPrefix(c.in, "up/") {
			got, err := ResolvePath(root + "/up/zz")
			if err != nil || got != parent+"/zz" {
				t.Errorf("up/zz: got %q, %v, want %q", got, err, parent+"/zz")
			}
			continue
		}
		in := root + "/" + c.in
		want := root
		if c.want != "" {
			want = root + "/" + c.want
		}
		got, err := ResolvePath(in)
		if err != nil {
			t.Errorf("ResolvePath(%q): %v", in, err)
			continue
		}
		if got != want {
			t.Errorf("ResolvePath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolvePathRootAndRelative(t *testing.T) {
	for in, want := range map[string]string{"/": "/", "//": "/", "/..": "/", "/../..": "/"} {
		if got, err := ResolvePath(in); err != nil || got != want {
			t.Errorf("ResolvePath(%q) = %q, %v, want %q", in, got, err, want)
		}
	}
	root := pathFixture(t)
	t.Chdir(root)
	got, err := ResolvePath("link/new.md")
	if err != nil || got != root+"/a/b/new.md" {
		t.Fatalf("relative: got %q, %v", got, err)
	}
	if _, err := ResolvePath(""); err == nil {
		t.Fatal("empty path accepted")
	}
}

func TestResolvePathLoops(t *testing.T) {
	root := pathFixture(t)
	for _, in := range []string{"loop1", "loop2/x", "self", "self/b/c", "a/../loop1/y"} {
		_, err := ResolvePath(root + "/" + in)
		if !errors.Is(err, ErrSymlinkLoop) {
			t.Errorf("ResolvePath(%q): err = %v, want ErrSymlinkLoop", in, err)
		}
	}
	// Python's realpath gives up at the loop and normalizes the rest
	// lexically; the result no longer traverses the loop, so no error.
	got, err := ResolvePath(root + "/self/../a/b")
	if err != nil || got != root+"/a/b" {
		t.Fatalf("self/../a/b: got %q, %v, want %q", got, err, root+"/a/b")
	}
}

// TestResolvePathMatchesPython compares with the real Python implementation
// when python3 is installed.
func TestResolvePathMatchesPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	root := pathFixture(t)
	inputs := []string{root + "/up/zz", root + "/loop1", root + "/self/../a", root + "/loop1/../link/../x",
		root + "/self/b/c", root + "/a/../loop1/y", root + "/chain1/../link/../../q"}
	for _, c := range resolveCases {
		if !strings.HasPrefix(c.in, "up/") {
			inputs = append(inputs, root+"/"+c.in)
		}
	}
	// Python 3.13 stopped raising on symlink loops in non-strict mode; this
	// package follows 3.8-3.12 (the error), so loop inputs are compared only
	// against those versions.
	if exec.Command(py, "-c", "import sys; sys.exit(sys.version_info >= (3, 13))").Run() != nil {
		kept := inputs[:0]
		for _, in := range inputs {
			if !strings.Contains(in, "loop") && !strings.Contains(in, "self") {
				kept = append(kept, in)
			}
		}
		inputs = kept
	}
	script := `
import sys, pathlib
for line in sys.stdin.read().split("\0"):
    if not line:
        continue
    try:
        print(str(pathlib.Path(line).resolve(strict=False)), end="\0")
    except (RuntimeError, OSError):
        print("<error>", end="\0")
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(strings.Join(inputs, "\x00") + "\x00")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("python3 unusable: %v", err)
	}
	results := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(results) != len(inputs) {
		t.Fatalf("python returned %d results for %d inputs", len(results), len(inputs))
	}
	for i, in := range inputs {
		got, err := ResolvePath(in)
		if err != nil {
			got = "<error>"
		}
		if got != results[i] {
			t.Errorf("ResolvePath(%q) = %q, python says %q", in, got, results[i])
		}
	}
}

func TestWithin(t *testing.T) {
	cases := []struct {
		root, path string
		want       bool
	}{
		{"/w", "/w", true},
		{"/w", "/w/x", true},
		{"/w", "/w/x/y", true},
		{"/w", "/wx", false},
		{"/w", "/", false},
		{"/w/x", "/w", false},
		{"/", "/anything", true},
		{"/", "/", true},
	}
	for _, c := range cases {
		if got := Within(c.root, c.path); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.root, c.path, got, c.want)
		}
	}
}

// TestResolvePathSymlinkedParent: a workspace reached through a symlink to
// its parent (macOS: /var -> /private/var) resolves to its real path, and
// its managed paths, resolved the same way, are within it.
func TestResolvePathSymlinkedParent(t *testing.T) {
	root := resolvedTempDir(t)
	real := filepath.Join(root, "real")
	if err := os.MkdirAll(filepath.Join(real, "ws", "EchoesVault"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlinkOrSkip(t, real, filepath.Join(root, "link"))
	ws, err := ResolvePath(root + "/link/ws")
	if err != nil || ws != real+"/ws" {
		t.Fatalf("workspace: %q %v", ws, err)
	}
	for _, rel := range []string{"EchoesVault", "EchoesVault/index.md", "EchoesVault/pages/new.md", ".echoes-vault/lock"} {
		got, err := ResolvePath(root + "/link/ws/" + rel)
		if err != nil || got != real+"/ws/"+rel || !Within(ws, got) {
			t.Fatalf("%s: %q %v", rel, got, err)
		}
	}
	if Within(root+"/link/ws", real+"/ws/x") {
		t.Fatal("an unresolved root contains its resolved children: Within compares text")
	}
}
