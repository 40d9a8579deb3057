//go:build windows

package fsx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// resolvedTempDir returns a t.TempDir resolved by the system (on Windows
// runners the temporary directory is often an 8.3 short name).
func resolvedTempDir(t *testing.T) string {
	t.Helper()
	d, err := RealPath(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestWithinWindows(t *testing.T) {
	cases := []struct {
		root, path string
		want       bool
	}{
		{`C:\w`, `C:\w`, true},
		{`C:\w`, `C:\w\x`, true},
		{`C:\w`, `c:\W\X\y`, true},
		{`C:\w`, `C:\wx`, false},
		{`C:\w`, `C:\`, false},
		{`C:\w\x`, `C:\w`, false},
		{`C:\w`, `D:\w\x`, false},
		{`C:\`, `C:\anything`, true},
		{`C:\`, `c:\`, true},
		{`C:\`, `D:\anything`, false},
		{`\\srv\share`, `\\SRV\Share\a`, true},
		{`\\srv\share`, `\\srv\shareX\a`, false},
		{`\\srv\share\`, `\\srv\share\a`, true},
		{`C:/w`, `C:\w\x`, true},
		{`C:\w`, `C:/w/x`, true},
		{`C:\Ärger`, `C:\ärger\x`, true},
		{`C:\Ärger`, `C:\ärgerlich`, false},
	}
	for _, c := range cases {
		if got := Within(c.root, c.path); got != c.want {
			t.Errorf("Within(%q, %q) = %v, want %v", c.root, c.path, got, c.want)
		}
	}
}

func TestResolvePathWindows(t *testing.T) {
	root := resolvedTempDir(t)
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "a", "b", "c.md"), []byte("c"), 0o644)
	cases := map[string]string{
		`a\b\c.md`:                         `a\b\c.md`,
		`a\b\missing\deeper.md`:            `a\b\missing\deeper.md`,
		`missing\x\..\y`:                   `missing\y`,
		`a\..\b`:                           `b`,
		`.\a\\b\.\c.md`:                    `a\b\c.md`,
		`a/b/c.md`:                         `a\b\c.md`,
		`A\B\C.MD`:                         `a\b\c.md`, // the on-disk case of existing components
		`A\B\NEW\File.md`:                  `a\b\NEW\File.md`,
		`a\b\c.md\below`:                   `a\b\c.md\below`,
		`..\` + filepath.Base(root) + `\a`: `a`,
	}
	for in, want := range cases {
		got, err := ResolvePath(root + `\` + in)
		if err != nil {
			t.Errorf("ResolvePath(%q): %v", in, err)
			continue
		}
		if want := root + `\` + want; got != want {
			t.Errorf("ResolvePath(%q) = %q, want %q", in, got, want)
		}
	}
	if got, err := ResolvePath(root); err != nil || got != root {
		t.Errorf("ResolvePath(root) = %q, %v", got, err)
	}
	vol := filepath.VolumeName(root)
	if got, err := ResolvePath(vol + `\`); err != nil || !strings.EqualFold(got, vol+`\`) {
		t.Errorf("ResolvePath(%s\\) = %q, %v", vol, got, err)
	}
	t.Chdir(filepath.Join(root, "a"))
	if got, err := ResolvePath(`b\new.md`); err != nil || got != root+`\a\b\new.md` {
		t.Errorf("relative: %q %v", got, err)
	}
	if _, err := ResolvePath(""); err == nil {
		t.Error("empty path accepted")
	}
}

// TestResolvePathWindowsSymlinkedParent: the macOS /var -> /private/var
// situation, on Windows: a workspace reached through a symlinked parent.
func TestResolvePathWindowsSymlinkedParent(t *testing.T) {
	root := resolvedTempDir(t)
	real := filepath.Join(root, "real")
	if err := os.MkdirAll(filepath.Join(real, "ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlinkOrSkip(t, real, filepath.Join(root, "link"))
	got, err := ResolvePath(filepath.Join(root, "link", "ws", "EchoesVault", "index.md"))
	if err != nil || got != filepath.Join(real, "ws", "EchoesVault", "index.md") {
		t.Fatalf("%q %v", got, err)
	}
	ws, _ := ResolvePath(filepath.Join(root, "link", "ws"))
	if !Within(ws, got) {
		t.Fatalf("Within(%q, %q) = false", ws, got)
	}
	// A dangling symlink resolves to its target, as in Python.
	symlinkOrSkip(t, filepath.Join(root, "nowhere"), filepath.Join(root, "dangling"))
	if got, err := ResolvePath(filepath.Join(root, "dangling", "x")); err != nil || got != filepath.Join(root, "nowhere", "x") {
		t.Fatalf("dangling: %q %v", got, err)
	}
}

// TestResolvePathMatchesPythonWindows compares with ntpath.realpath where a
// Windows Python is installed (never under Wine).
func TestResolvePathMatchesPythonWindows(t *testing.T) {
	var py string
	for _, name := range []string{"python3", "python", "py"} {
		if p, err := exec.LookPath(name); err == nil && exec.Command(p, "-c", "import pathlib").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("no Windows Python here")
	}
	root := resolvedTempDir(t)
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	inputs := []string{root + `\a\b`, root + `\A\b\missing\x.md`, root + `\a\..\b`, root + `/a/b/new`, root}
	script := `
import sys, pathlib
for line in sys.stdin.read().split("\0"):
    if line:
        print(str(pathlib.Path(line).resolve(strict=False)), end="\0")
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(strings.Join(inputs, "\x00") + "\x00")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("python unusable: %v", err)
	}
	results := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(results) != len(inputs) {
		t.Fatalf("python returned %d results for %d inputs", len(results), len(inputs))
	}
	for i, in := range inputs {
		got, err := ResolvePath(in)
		if err != nil {
			t.Errorf("ResolvePath(%q): %v", in, err)
		} else if got != results[i] {
			t.Errorf("ResolvePath(%q) = %q, python says %q", in, got, results[i])
		}
	}
}
