package fsx

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, p string, data []byte, mode fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// assertNoTemps fails if any ".*.tmp" file remains anywhere under dir.
func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n := d.Name()
		if strings.HasPrefix(n, ".") && strings.HasSuffix(n, ".tmp") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func modeOf(t *testing.T, p string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestWriteFileAtomicExactBytes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "index.md")
	data := []byte("# Title\r\nline two\r\n\nno newline at end \x00\xff")
	if err := WriteFileAtomic(p, data); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); !bytes.Equal(got, data) {
		t.Fatalf("content = %q, want %q", got, data)
	}
	if err := WriteFileAtomic(p, nil); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); len(got) != 0 {
		t.Fatalf("empty write left %q", got)
	}
	assertNoTemps(t, dir)
}

// TestWriteFileAtomicParts: the file is the parts' concatenation, empty
// parts included; a failed write of any step leaves the old file and no
// temporary file.
func TestWriteFileAtomicParts(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rendered")
	if err := WriteFileAtomicParts(p, []byte("head\x00"), nil, []byte("body\r\n"), []byte{}); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, p)); got != "head\x00body\r\n" {
		t.Fatalf("content = %q", got)
	}
	for _, step := range []string{"write", "sync", "chmod", "close", "rename"} {
		failAt(t, step)
		if err := WriteFileAtomicParts(p, []byte("new "), []byte("answer")); !errors.Is(err, errInjected) {
			t.Fatalf("%s: err = %v, want the injected failure", step, err)
		}
		failStep = nil
		if got := string(readFile(t, p)); got != "head\x00body\r\n" {
			t.Fatalf("%s: the file changed: %q", step, got)
		}
		assertNoTemps(t, dir)
	}
}

func TestWriteFileAtomicReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "page.md")
	writeFile(t, p, []byte("old content that is longer than the new one\n"), 0o644)
	if err := WriteFileAtomic(p, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, p)); got != "new\n" {
		t.Fatalf("content = %q", got)
	}
	assertNoTemps(t, dir)
}

func TestWriteFileAtomicNewFileMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "new.md")
	if err := WriteFileAtomic(p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	want := wantNewFileMode()
	if got := modeOf(t, p); got != want {
		t.Fatalf("new file mode = %v, want %v", got, want)
	}
}

func TestWriteFileAtomicCreatesParents(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "c", "file.md")
	if err := WriteFileAtomic(p, []byte("deep")); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, p)); got != "deep" {
		t.Fatalf("content = %q", got)
	}
	if !IsDirNoFollow(filepath.Join(dir, "a", "b")) {
		t.Fatal("parent directory not created")
	}
}

func TestWriteFileAtomicRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.md")
	writeFile(t, real, []byte("original"), 0o644)
	link := filepath.Join(dir, "link.md")
	symlinkOrSkip(t, "real.md", link)
	err := WriteFileAtomic(link, []byte("evil"))
	var se *SymlinkError
	if !errors.As(err, &se) || se.Path != link || !errors.Is(err, ErrSymlink) {
		t.Fatalf("err = %v, want *SymlinkError for %s", err, link)
	}
	if want := "Refusing to replace a symbolic link: " + link; err.Error() != want {
		t.Fatalf("message = %q, want %q", err.Error(), want)
	}
	if got := string(readFile(t, real)); got != "original" {
		t.Fatalf("link target modified: %q", got)
	}
	if !IsSymlink(link) {
		t.Fatal("symlink replaced")
	}
	assertNoTemps(t, dir)
}

func TestWriteFileAtomicRefusesDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "dangling.md")
	symlinkOrSkip(t, filepath.Join(dir, "missing"), link)
	err := WriteFileAtomic(link, []byte("x"))
	var se *SymlinkError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *SymlinkError", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("dangling link target was created")
	}
	assertNoTemps(t, dir)
}

func TestWriteFileAtomicFailures(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeFile(t, file, []byte("I am a file"), 0o644)
	if err := WriteFileAtomic(filepath.Join(file, "child.md"), []byte("x")); err == nil {
		t.Fatal("write below a regular file succeeded")
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(sub, []byte("x")); !errors.Is(err, syscall.EISDIR) {
		t.Fatalf("replacing a directory: err = %v, want EISDIR", err)
	}
	if !IsDirNoFollow(sub) {
		t.Fatal("directory replaced")
	}
	if got := string(readFile(t, file)); got != "I am a file" {
		t.Fatalf("file modified: %q", got)
	}
	assertNoTemps(t, dir)
}

func TestTempName(t *testing.T) {
	re := regexp.MustCompile(`^\.index\.md\.[a-z0-9_]{8}\.tmp$`)
	seen := map[string]bool{}
	for range 200 {
		n, err := TempName("index.md")
		if err != nil {
			t.Fatal(err)
		}
		if !re.MatchString(n) {
			t.Fatalf("bad temp name %q", n)
		}
		seen[n] = true
	}
	if len(seen) < 190 {
		t.Fatalf("temp names not random: %d distinct of 200", len(seen))
	}
}

func TestCreateFileExclusive(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "daily", "2026-09-04", "entry.md")
	data := []byte("### Scratchpad\r\n\nhello\n")
	if err := CreateFileExclusive(p, data); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); !bytes.Equal(got, data) {
		t.Fatalf("content = %q", got)
	}
	if got, want := modeOf(t, p), wantNewFileMode(); got != want {
		t.Fatalf("mode = %v, want %v", got, want)
	}
	err := CreateFileExclusive(p, []byte("second"))
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("err = %v, want fs.ErrExist", err)
	}
	if got := readFile(t, p); !bytes.Equal(got, data) {
		t.Fatalf("existing file modified: %q", got)
	}
	assertNoTemps(t, dir)
}

func TestCreateFileExclusiveExistingSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "entry.md")
	symlinkOrSkip(t, filepath.Join(dir, "nowhere"), link)
	if err := CreateFileExclusive(link, []byte("x")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("err = %v, want fs.ErrExist", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("symlink target was created")
	}
	assertNoTemps(t, dir)
}

func TestIsHelpers(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	writeFile(t, f, nil, 0o644)
	d := filepath.Join(dir, "d")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	type isCase struct {
		p                  string
		link, regular, dir bool
	}
	check := func(cases []isCase) {
		t.Helper()
		for _, c := range cases {
			if IsSymlink(c.p) != c.link || IsRegular(c.p) != c.regular || IsDirNoFollow(c.p) != c.dir {
				t.Errorf("%s: IsSymlink=%v IsRegular=%v IsDirNoFollow=%v, want %v %v %v",
					c.p, IsSymlink(c.p), IsRegular(c.p), IsDirNoFollow(c.p), c.link, c.regular, c.dir)
			}
		}
	}
	check([]isCase{{f, false, true, false}, {d, false, false, true}, {missing, false, false, false}})
	lf := filepath.Join(dir, "lf")
	ld := filepath.Join(dir, "ld")
	symlinkOrSkip(t, f, lf)
	symlinkOrSkip(t, d, ld)
	check([]isCase{{lf, true, false, false}, {ld, true, false, false}})
}
