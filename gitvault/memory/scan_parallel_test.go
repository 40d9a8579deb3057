package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/jsjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// scanFingerprint renders everything a scan returns, in order.
func scanFingerprint(t *testing.T, r *Roots, scopes []string) string {
	t.Helper()
	sr, err := scan(r, scopes)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, e := range sr.Entries {
		b.WriteString(e.Path + " " + jsjson.MarshalCompact(e.Memory.Full()) + "\n")
	}
	b.WriteString(jsjson.MarshalCompact(sr.Diagnostics.JSONValue()))
	return b.String()
}

// withScanWorkers runs f with the scan's worker count forced to n.
func withScanWorkers(n int, f func()) {
	old := scanWorkers
	scanWorkers = n
	defer func() { scanWorkers = old }()
	f()
}

// assertParallelScanIsSequential compares the sequential scan (one worker)
// with parallel scans of several widths over the same vault.
func assertParallelScanIsSequential(t *testing.T, r *Roots, scopes []string) string {
	t.Helper()
	var want string
	withScanWorkers(1, func() { want = scanFingerprint(t, r, scopes) })
	for _, n := range []int{2, 3, 8, 33} {
		var got string
		withScanWorkers(n, func() { got = scanFingerprint(t, r, scopes) })
		if got != want {
			t.Fatalf("scan with %d workers differs from the sequential scan:\n%s\n---\n%s", n, got, want)
		}
	}
	return want
}

func TestMemoryParallelScanMatchesSequential(t *testing.T) {
	r := testRoots(t)
	for i := 0; i < 300; i++ {
		writeMemory(t, r, mem(fmt.Sprintf("mem_par_%04d", i), func(m *Memory) {
			m.Kind = Kinds[i%len(Kinds)]
			if i%4 == 0 {
				m.Scope = "team"
			}
			m.Body = strings.Repeat("word ", i%50+1)
		}))
	}
	proj := r.ScopeRoot("project")
	// Every kind of failure, spread through the walk order. Where the
	// system has no symlinks (Windows without the privilege, Wine) or no
	// FIFOs (Windows), those entries are plain invalid files instead, and
	// the totals below are not checked.
	links, fifos := true, true
	for i := 0; i < 150; i++ {
		dir := filepath.Join(proj, "notes")
		switch i % 6 {
		case 0:
			testenv.WriteFile(t, filepath.Join(dir, fmt.Sprintf("bad%03d.md", i)), "---\nnot: valid\n---\n\nbody\n")
		case 1:
			testenv.WriteFile(t, filepath.Join(proj, "decisions", fmt.Sprintf("misplaced%03d.md", i)), string(mem(fmt.Sprintf("mem_mis_%03d", i)).Serialize()))
		case 2:
			m := mem(fmt.Sprintf("mem_sec_%03d", i), func(m *Memory) { m.Body = "key sk-ABCDEFGHIJKLMNOPQRSTUV" })
			testenv.WriteFile(t, filepath.Join(dir, fmt.Sprintf("secret%03d.md", i)), string(m.Serialize()))
		case 3:
			name := filepath.Join(dir, fmt.Sprintf("link%03d.md", i))
			if !links || !trySymlink(t, "bad000.md", name) {
				links = false
				testenv.WriteFile(t, name+".txt", "not a link") // not scanned
			}
		case 4:
			name := filepath.Join(dir, fmt.Sprintf("fifo%03d.md", i))
			if !fifos || !mkfifo(t, name) {
				fifos = false
				testenv.WriteFile(t, name+".txt", "not a fifo") // not scanned
			}
		case 5:
			testenv.WriteFile(t, filepath.Join(dir, fmt.Sprintf("latin%03d.md", i)), "---\n\xe9\n---\n")
		}
	}
	testenv.WriteFile(t, filepath.Join(proj, "top.md"), string(mem("mem_top").Serialize()))
	testenv.WriteFile(t, filepath.Join(proj, ".hidden", "notes", "x.md"), "ignored")
	testenv.WriteFile(t, filepath.Join(proj, "notes", "readme.txt"), "ignored")
	testenv.WriteFile(t, filepath.Join(proj, "notes", "big.md"), strings.Repeat("x", MaxDocumentBytes+1))
	got := assertParallelScanIsSequential(t, r, []string{"project", "team"})
	wants := []string{"location-mismatch", "suspected-secret", "mem_par_0299"}
	if links && fifos {
		wants = append(wants, `"invalidFileCount":102,`, `"skippedSymlinkCount":25,`)
	}
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Fatalf("fixture vault lacks %s:\n%s", want, got)
		}
	}
	assertParallelScanIsSequential(t, r, []string{"team", "project", "user"})
}

func TestMemoryParallelScanByteBudgetMatchesSequential(t *testing.T) {
	r := testRoots(t)
	big := strings.Repeat("x", 130000)
	for i := 0; i < 140; i++ {
		writeMemory(t, r, mem(fmt.Sprintf("mem_big_%03d", i), func(m *Memory) {
			m.Body = big[:130000-i*7]
			if i%5 == 0 {
				m.Scope = "team"
			}
		}))
		if i%9 == 0 {
			testenv.WriteFile(t, filepath.Join(r.ScopeRoot("project"), "notes", fmt.Sprintf("mem_big_%03d_bad.md", i)), "---\nbad\n---\n\nx\n")
		}
	}
	for _, scopes := range [][]string{{"project", "team"}, {"team", "project"}} {
		if got := assertParallelScanIsSequential(t, r, scopes); !strings.Contains(got, `"truncated":true`) {
			t.Fatalf("the byte budget was not reached: %s", got[len(got)-200:])
		}
	}
}

// TestMemoryGuardedReaderSizes covers the raw-descriptor read: exact cap,
// one byte over (refused from fstat), and files whose fstat size is wrong
// (procfs reports 0), which must grow the buffer and still honour the cap.
func TestMemoryGuardedReaderSizes(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 100} {
		p := filepath.Join(dir, fmt.Sprint(n))
		testenv.WriteFile(t, p, strings.Repeat("a", n))
		got, err := readGuarded(p, "file", 512, dir)
		switch {
		case n <= 512 && (err != nil || got != strings.Repeat("a", n)):
			t.Fatalf("%d bytes: %q %v", n, got, err)
		case n > 512 && (err == nil || err.Error() != "file is too large ("+fmt.Sprint(n)+" bytes)."):
			t.Fatalf("%d bytes: %v", n, err)
		}
	}
	const proc = "/proc/self/maps"
	want, err := os.ReadFile(proc)
	if err != nil || len(want) < 100 {
		t.Skip("no procfs")
	}
	if _, err := readGuarded(proc, "file", 10, ""); err == nil || err.Error() != "file is too large (maximum 10 bytes)." {
		t.Fatalf("procfs over the cap: %v", err)
	}
	got, err := readGuarded(proc, "file", 1<<20, "")
	if err != nil || len(got) < 100 || !strings.Contains(got, "[stack]") {
		t.Fatalf("procfs read: %d bytes, %v", len(got), err)
	}
}

// TestMemoryFileWithinMatchesWithin: for the files a scan reads (regular
// files and vanished paths), the cached per-directory containment agrees
// with the uncached ecc-conformance §3.2 test, including a directory that resolves to the
// root's parent and a directory reached through a symlink.
func TestMemoryFileWithinMatchesWithin(t *testing.T) {
	tmp := t.TempDir()
	root := filepath.Join(tmp, "vault", "project")
	other := filepath.Join(tmp, "other")
	for _, d := range []string{filepath.Join(root, "notes", "deep"), other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	symlinkOrSkip(t, other, filepath.Join(root, "away"))
	symlinkOrSkip(t, filepath.Join(root, "notes"), filepath.Join(tmp, "alias"))
	dirs := []string{root, filepath.Join(root, "notes"), filepath.Join(root, "notes", "deep"), filepath.Join(tmp, "vault"),
		tmp, other, filepath.Join(root, "away"), filepath.Join(tmp, "alias")}
	for _, d := range dirs {
		testenv.WriteFile(t, filepath.Join(d, "file.md"), "x")
	}
	for _, rootArg := range []string{root, filepath.Join(tmp, "alias"), filepath.Join(root, "notes")} {
		rs := newResolver()
		rootReal, err := rs.realpathNearest(rootArg)
		if err != nil {
			t.Fatal(err)
		}
		for pass := 0; pass < 2; pass++ { // the second pass hits the caches
			for _, d := range dirs {
				for _, base := range []string{"file.md", "missing.md", "project", "notes", "vault"} {
					got := rs.fileWithin(d, base, rootReal)
					if want := within(filepath.Join(d, base), rootArg); got != want {
						t.Fatalf("root %s: %s/%s: fileWithin %v, within %v", rootArg, d, base, got, want)
					}
				}
			}
		}
	}
}

func TestMemoryParallelSearchMatchesSequential(t *testing.T) {
	r := testRoots(t)
	words := []string{"token", "rotation", "database", "İstanbul", "cache", "don't", "v2.0", "e"}
	for i := 0; i < 700; i++ {
		writeMemory(t, r, mem(fmt.Sprintf("mem_ps_%04d", i), func(m *Memory) {
			m.Kind = Kinds[i%len(Kinds)]
			if i%3 == 0 {
				m.Scope = "team"
			}
			if i%7 == 0 {
				m.Status = "superseded"
			}
			if i%5 == 0 {
				m.TargetHarnesses = []string{"claude"}
			}
			m.UpdatedAt = fmt.Sprintf("2026-07-%02dT20:00:00.000Z", i%28+1)
			m.Title = words[i%8] + " " + words[(i/8)%8]
			m.Tags = []string{fmt.Sprintf("tag%d", i%4)}
			m.Body = strings.Repeat(words[(i+5)%8]+" and "+words[(i+1)%8]+". ", i%40+1)
		}))
	}
	queries := []SearchOptions{{Query: "token rotation", Limit: 100}, {Query: ""}, {Query: "e", Limit: 100},
		{Query: "tag2 cache", Kinds: []string{"note", "decision"}}, {Query: "istanbul", TargetHarness: "codex", Limit: 50}}
	for _, q := range queries {
		var want string
		withScanWorkers(1, func() {
			res, err := Search(r, q)
			if err != nil {
				t.Fatal(err)
			}
			want = jsjson.MarshalCompact(res.JSON())
		})
		for _, n := range []int{2, 3, 8} {
			withScanWorkers(n, func() {
				res, err := Search(r, q)
				if err != nil {
					t.Fatal(err)
				}
				if got := jsjson.MarshalCompact(res.JSON()); got != want {
					t.Fatalf("%+v with %d workers differs:\n%s\n---\n%s", q, n, got, want)
				}
			})
		}
	}
}

// TestMemoryGuardedReadAtMatchesPathReader: the scan's directory-relative
// reader gives the path-based reader's exact result for every file shape.
func TestMemoryGuardedReadAtMatchesPathReader(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFile(t, filepath.Join(dir, "ok.md"), "---\nhello\n")
	testenv.WriteFile(t, filepath.Join(dir, "bom.md"), "\uFEFFtext")
	testenv.WriteFile(t, filepath.Join(dir, "latin.md"), "\xe9t\xe9")
	testenv.WriteFile(t, filepath.Join(dir, "big.md"), strings.Repeat("x", 2000))
	testenv.WriteFile(t, filepath.Join(dir, "sub", "x.md"), "x")
	names := []string{"ok.md", "bom.md", "latin.md", "big.md", "sub", "absent.md"}
	// Symlinks and FIFOs where the system has them (not on Windows under
	// Wine, not FIFOs on Windows at all).
	if trySymlink(t, "ok.md", filepath.Join(dir, "link.md")) && trySymlink(t, "missing", filepath.Join(dir, "dangling.md")) {
		names = append(names, "link.md", "dangling.md")
	}
	if mkfifo(t, filepath.Join(dir, "fifo.md")) {
		names = append(names, "fifo.md")
	}
	d, err := fsx.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, name := range names {
		p := filepath.Join(dir, name)
		for _, inside := range []func() bool{nil, func() bool { return true }, func() bool { return false }} {
			want, werr := readGuardedCheck(p, "memory document", 1000, dir, inside)
			got, gerr := readGuardedAt(d, name, p, "memory document", 1000, dir, inside)
			if got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) || ErrorCode(gerr) != ErrorCode(werr) {
				t.Fatalf("%s: at %q %v, path %q %v", name, got, gerr, want, werr)
			}
		}
	}
}

// TestMemoryScanClosesDirectories: no descriptor outlives a scan, whether
// it ran to the end or stopped at the byte budget.
func TestMemoryScanClosesDirectories(t *testing.T) {
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(ents)
	}
	r := testRoots(t)
	big := strings.Repeat("x", 130000)
	for i := 0; i < 140; i++ {
		writeMemory(t, r, mem(fmt.Sprintf("mem_fd_%03d", i), func(m *Memory) {
			m.Kind = Kinds[i%len(Kinds)]
			m.Body = big
		}))
	}
	before := fds()
	for _, n := range []int{1, 2, 4} {
		withScanWorkers(n, func() {
			if d, err := Doctor(r, DoctorOptions{}); err != nil || !d.Truncated {
				t.Fatalf("%+v %v", d, err)
			}
		})
	}
	if after := fds(); after != before {
		t.Fatalf("descriptors: %d before, %d after", before, after)
	}
}
