package fsx

// The contract suite: the guarantees this package gives on every OS
// (doc.go's table), checked on every OS it is built for. OS-specific
// extras live in *_unix_test.go and *_windows_test.go.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestContractNoTempLeftOnFailure is the regression test of issue 11: a
// failure at any step after the temporary file exists must remove it (the
// named result of writeTemp used to be cleared by `return "", err` before
// the deferred removal read it). The existing file is left untouched.
func TestContractNoTempLeftOnFailure(t *testing.T) {
	for _, step := range []string{"write", "sync", "chmod", "close", "rename"} {
		t.Run("WriteFileAtomic/"+step, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "page.md")
			writeFile(t, p, []byte("old"), 0o644)
			failAt(t, step)
			err := WriteFileAtomic(p, []byte("new content"))
			if !errors.Is(err, errInjected) {
				t.Fatalf("err = %v, want the injected failure", err)
			}
			assertNoTemps(t, dir)
			if got := string(readFile(t, p)); got != "old" {
				t.Fatalf("target changed to %q", got)
			}
		})
	}
	for _, step := range []string{"write", "sync", "chmod", "close", "publish"} {
		t.Run("CreateFileExclusive/"+step, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "entry.md")
			failAt(t, step)
			if err := CreateFileExclusive(p, []byte("x")); !errors.Is(err, errInjected) {
				t.Fatalf("err = %v, want the injected failure", err)
			}
			assertNoTemps(t, dir)
			if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("destination created: %v", err)
			}
		})
	}
	for _, step := range []string{"write", "sync", "close", "publish"} {
		t.Run("Publish/"+step, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "m.md")
			failAt(t, step)
			if err := Publish(p, []byte("x"), PublishOptions{Temp: filepath.Join(dir, ".m.md.fixed.tmp")}); !errors.Is(err, errInjected) {
				t.Fatalf("err = %v, want the injected failure", err)
			}
			assertNoTemps(t, dir)
			if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("destination created: %v", err)
			}
		})
	}
}

func TestContractAtomicReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "index.md")
	for i, data := range [][]byte{[]byte("first\r\n"), bytes.Repeat([]byte("x"), 100000), nil, []byte("last")} {
		if err := WriteFileAtomic(p, data); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if got := readFile(t, p); !bytes.Equal(got, data) {
			t.Fatalf("write %d: got %d bytes, want %d", i, len(got), len(data))
		}
	}
	if got, want := modeOf(t, p), wantNewFileMode(); got != want {
		t.Fatalf("mode %v, want %v", got, want)
	}
	assertNoTemps(t, dir)
}

// TestContractAtomicReplaceReadOnly: a read-only target keeps its mode
// where the OS replaces it (POSIX: the directory decides); on Windows,
// where MoveFileEx refuses to replace a read-only file, the write fails,
// the file is unchanged and no temporary file remains.
func TestContractAtomicReplaceReadOnly(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ro.md")
	writeFile(t, p, []byte("old"), 0o444)
	err := WriteFileAtomic(p, []byte("new"))
	assertNoTemps(t, dir)
	switch {
	case err == nil:
		if got := string(readFile(t, p)); got != "new" {
			t.Fatalf("content %q", got)
		}
		if got, want := modeOf(t, p), fs.FileMode(0o444); got != want {
			t.Fatalf("mode %v, want %v", got, want)
		}
	case runtime.GOOS == "windows":
		if got := string(readFile(t, p)); got != "old" {
			t.Fatalf("failed replace changed the file: %q", got)
		}
	default:
		t.Fatal(err)
	}
	_ = os.Chmod(p, 0o644)
}

func TestContractCreateOnlyNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.md")
	writeFile(t, file, []byte("original"), 0o644)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{file, sub} {
		if err := CreateFileExclusive(target, []byte("evil")); !errors.Is(err, fs.ErrExist) {
			t.Errorf("CreateFileExclusive(%s): %v, want ErrExist", target, err)
		}
		var ee *ExistsError
		if err := Publish(target, []byte("evil"), PublishOptions{Temp: filepath.Join(dir, ".t.tmp")}); !errors.As(err, &ee) {
			t.Errorf("Publish(%s): %v, want *ExistsError", target, err)
		}
	}
	if got := string(readFile(t, file)); got != "original" {
		t.Fatalf("existing file changed: %q", got)
	}
	if !IsDirNoFollow(sub) {
		t.Fatal("directory replaced")
	}
	assertNoTemps(t, dir)
}

func TestContractCreateOnlyRefusesDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "entry.md")
	symlinkOrSkip(t, filepath.Join(dir, "nowhere"), link)
	var ee *ExistsError
	if err := Publish(link, []byte("x"), PublishOptions{Temp: filepath.Join(dir, ".e.tmp")}); !errors.As(err, &ee) {
		t.Fatalf("Publish onto a dangling symlink: %v", err)
	}
	if err := CreateFileExclusive(link, []byte("x")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("CreateFileExclusive onto a dangling symlink: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("the link's target was created")
	}
	if !IsSymlink(link) {
		t.Fatal("the symlink was replaced")
	}
	assertNoTemps(t, dir)
}

// TestContractCreateOnlyRace: concurrent creators of one name; exactly one
// wins and its content is what the file holds.
func TestContractCreateOnlyRace(t *testing.T) {
	for _, publish := range []bool{false, true} {
		dir := t.TempDir()
		p := filepath.Join(dir, "daily", "entry.md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		const n = 8
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				data := []byte(fmt.Sprintf("writer %d\n", i))
				if publish {
					errs[i] = Publish(p, data, PublishOptions{Temp: filepath.Join(filepath.Dir(p), fmt.Sprintf(".entry.%d.tmp", i))})
				} else {
					errs[i] = CreateFileExclusive(p, data)
				}
			}()
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("two winners: %d and %d", winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, fs.ErrExist):
				t.Fatalf("writer %d: %v", i, err)
			}
		}
		if winner < 0 {
			t.Fatal("no writer won")
		}
		if got, want := string(readFile(t, p)), fmt.Sprintf("writer %d\n", winner); got != want {
			t.Fatalf("content %q, want %q", got, want)
		}
		assertNoTemps(t, dir)
	}
}

// TestContractPublish covers the options: the mode, both callbacks (their
// errors abort and are returned as is), and the identity check.
func TestContractPublish(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	tmp := filepath.Join(dir, ".a.tmp")
	calls := ""
	err := Publish(p, []byte("hello"), PublishOptions{Temp: tmp,
		Created:       func() error { calls += "created "; return nil },
		BeforePublish: func() error { calls += "before"; return nil }})
	if err != nil || calls != "created before" {
		t.Fatalf("err %v, calls %q", err, calls)
	}
	if got := string(readFile(t, p)); got != "hello" {
		t.Fatalf("content %q", got)
	}
	if got, want := modeOf(t, p), wantLockFileMode(); got != want {
		t.Fatalf("mode %v, want the temporary file's %v", got, want)
	}
	stop := errors.New("stop")
	for i, opt := range []PublishOptions{
		{Temp: tmp, Created: func() error { return stop }},
		{Temp: tmp, BeforePublish: func() error { return stop }},
	} {
		q := filepath.Join(dir, fmt.Sprintf("b%d.md", i))
		if err := Publish(q, []byte("x"), opt); err != stop {
			t.Fatalf("callback %d: err %v", i, err)
		}
		if _, err := os.Lstat(q); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("callback %d: published anyway", i)
		}
	}
	// A temporary name that exists already is not ours: refused at open.
	writeFile(t, tmp, []byte("someone else's"), 0o644)
	if err := Publish(filepath.Join(dir, "c.md"), []byte("x"), PublishOptions{Temp: tmp}); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("existing temporary name: %v", err)
	}
	var ee *ExistsError
	if errors.As(err, &ee) {
		t.Fatal("an existing temporary name reported as an existing destination")
	}
	_ = os.Remove(tmp)
	q := filepath.Join(dir, "d.md")
	if err := Publish(q, []byte("x"), PublishOptions{Temp: tmp, Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if got, want := modeOf(t, q), fs.FileMode(0o644); got != want {
			t.Fatalf("mode %v, want %v", got, want)
		}
	}
	assertNoTemps(t, dir)
}

func TestContractRenameNoReplace(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	writeFile(t, a, []byte("A"), 0o644)
	writeFile(t, b, []byte("B"), 0o644)
	err := renameNoReplace(a, b)
	var le *os.LinkError
	if !errors.As(err, &le) || le.Op != "rename" {
		t.Fatalf("rename onto an existing file: %v, want an *os.LinkError", err)
	}
	if string(readFile(t, a)) != "A" || string(readFile(t, b)) != "B" {
		t.Fatal("a no-replace rename changed a file")
	}
	if !errors.Is(err, fs.ErrExist) {
		// The portable build (and FreeBSD) have no such rename at all.
		if runtime.GOOS == "windows" || !errors.Is(err, syscall.ENOTSUP) {
			t.Fatalf("err = %v, want ErrExist or unsupported", err)
		}
		t.Logf("no atomic no-replace rename in this build: %v", err)
		return
	}
	if err := renameNoReplace(a, c); err != nil {
		t.Fatal(err)
	}
	if string(readFile(t, c)) != "A" {
		t.Fatal("renamed content")
	}
	if _, err := os.Lstat(a); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("source remains")
	}
}

// TestContractNoFollow: the guarded open refuses a symlink (and a dangling
// one) and gives the same identity as lstat for a regular file, by path
// and relative to an open directory.
func TestContractNoFollow(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ok.md")
	writeFile(t, p, []byte("content"), 0o644)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, byDir := range []bool{false, true} {
		open := func(name string) (File, error) {
			if byDir {
				return d.OpenNoFollow(name)
			}
			return OpenNoFollow(filepath.Join(dir, name))
		}
		lstat := func(name string) (Ident, error) {
			if byDir {
				return d.Lstat(name)
			}
			return LstatIdent(filepath.Join(dir, name))
		}
		f, err := open("ok.md")
		if err != nil {
			t.Fatal(err)
		}
		id, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		lid, err := lstat("ok.md")
		if err != nil {
			t.Fatal(err)
		}
		if !id.IsRegular() || !lid.IsRegular() || !id.SameFile(lid) || id.Size != 7 {
			t.Fatalf("byDir=%v: fstat %+v, lstat %+v", byDir, id, lid)
		}
		data, err := io.ReadAll(&f)
		if err != nil || string(data) != "content" {
			t.Fatalf("read %q %v", data, err)
		}
		_ = f.Close()
		// A directory opens and is reported as one.
		if g, err := open("sub"); err == nil {
			if id, err := g.Stat(); err != nil || id.Mode&fs.ModeDir == 0 {
				t.Fatalf("directory: %+v %v", id, err)
			}
			_ = g.Close()
		} else {
			t.Fatalf("open directory: %v", err)
		}
		if _, err := open("absent.md"); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("absent: %v", err)
		}
		if other, err := lstat("sub"); err != nil || other.SameFile(lid) || other.Mode&fs.ModeDir == 0 {
			t.Fatalf("lstat sub: %+v %v", other, err)
		}
	}
	if b, err := d.ReadFileBuf("ok.md", nil); err != nil || string(b) != "content" {
		t.Fatalf("Dir.ReadFileBuf: %q %v", b, err)
	}
	if b, err := ReadFileBuf(p, make([]byte, 0, 2)); err != nil || string(b) != "content" {
		t.Fatalf("ReadFileBuf: %q %v", b, err)
	}
	if _, err := OpenDir(p); err == nil {
		t.Fatal("OpenDir on a file succeeded")
	}

	symlinkOrSkip(t, "ok.md", filepath.Join(dir, "link.md"))
	symlinkOrSkip(t, "missing", filepath.Join(dir, "dangling.md"))
	for _, name := range []string{"link.md", "dangling.md"} {
		for _, f := range []func() (File, error){
			func() (File, error) { return OpenNoFollow(filepath.Join(dir, name)) },
			func() (File, error) { return d.OpenNoFollow(name) },
		} {
			_, err := f()
			if !isNoFollowError(err) {
				t.Fatalf("%s: err = %v, want ELOOP (EMLINK on FreeBSD)", name, err)
			}
		}
		id, err := d.Lstat(name)
		if err != nil || id.Mode&fs.ModeSymlink == 0 {
			t.Fatalf("%s: lstat %+v %v", name, id, err)
		}
	}
}

// isNoFollowError is what O_NOFOLLOW answers for a symlink: ELOOP on
// Linux, macOS and (translated) Windows, EMLINK on FreeBSD.
func isNoFollowError(err error) bool {
	return errors.Is(err, syscall.ELOOP) || (runtime.GOOS == "freebsd" && errors.Is(err, syscall.EMLINK))
}

func TestContractSyncDirAndMkdirAll(t *testing.T) {
	dir := t.TempDir()
	if err := SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(dir, "a", "b", "c")
	if err := MkdirAllSync(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	if !IsDirNoFollow(deep) {
		t.Fatal("not created")
	}
	if err := MkdirAllSync(deep, 0o700); err != nil {
		t.Fatalf("existing: %v", err)
	}
	file := filepath.Join(dir, "file")
	writeFile(t, file, nil, 0o644)
	var pe *fs.PathError
	if err := MkdirAllSync(filepath.Join(file, "x"), 0o700); !errors.As(err, &pe) {
		t.Fatalf("below a file: %v", err)
	}
}

func TestContractWriteLocked(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config")
	if err := WriteLocked(p, []byte("[core]\n")); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, p)); got != "[core]\n" {
		t.Fatalf("content %q", got)
	}
	if _, err := os.Lstat(p + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("lock file left behind")
	}
	if err := WriteLocked(p, []byte("[core]\n\tx = 1\n")); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, p)); got != "[core]\n\tx = 1\n" {
		t.Fatalf("content %q", got)
	}
	// Another writer's lock: nothing is touched.
	writeFile(t, p+".lock", []byte("theirs"), 0o644)
	err := WriteLocked(p, []byte("mine"))
	var le *LockFileError
	if !errors.As(err, &le) || !errors.Is(err, fs.ErrExist) || le.Path != p+".lock" {
		t.Fatalf("err = %v, want a *LockFileError matching ErrExist", err)
	}
	if string(readFile(t, p)) != "[core]\n\tx = 1\n" || string(readFile(t, p+".lock")) != "theirs" {
		t.Fatal("a held lock did not protect the file")
	}
	if !strings.Contains(err.Error(), p+".lock") {
		t.Fatalf("message %q", err)
	}
}

// TestContractLockHeldByAnotherProcess runs the lock across processes on
// every OS (the multi-process test is the heavy version).
func TestContractLockHeldByAnotherProcess(t *testing.T) {
	for _, ref := range references(t)[:1] {
		lock := filepath.Join(t.TempDir(), ".echoes-vault", "lock")
		p, line := startRefLocker(t, ref, lock, 5)
		if !strings.HasPrefix(line, "held ") {
			t.Fatalf("%q", line)
		}
		if _, err := AcquireLock(lock, fastBusy); !errors.Is(err, ErrLockBusy) {
			t.Fatalf("acquired a lock another process holds: %v", err)
		}
		_, _ = io.WriteString(p.stdin, "\n")
		if line, _ := p.out.ReadString('\n'); strings.TrimSpace(line) != "released" {
			t.Fatalf("%q", line)
		}
	}
}
