package memory

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/jsjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

func TestMemorySaveWritesExactBytesCreateOnly(t *testing.T) {
	r := testRoots(t)
	res, err := Save(r, SaveInput{Title: "Auth", Body: "\n body \n", Kind: "lesson", Tags: []string{"auth"},
		Now: time.Date(2026, 7, 26, 20, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(r.ProjectVault, "project", "lessons", res.Memory.ID+".md")
	if res.Path != want || res.Memory.RelPath() != "project:lessons/"+res.Memory.ID+".md" {
		t.Fatalf("path %s, rel %s", res.Path, res.Memory.RelPath())
	}
	got, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(res.Memory.Serialize()) || !strings.HasSuffix(string(got), "---\n\nbody\n") {
		t.Fatalf("file bytes:\n%s", got)
	}
	fi, err := os.Stat(res.Path)
	// Windows has no group and other permission bits (Go reports 0666).
	if err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0) {
		t.Fatalf("memory file mode %v %v", fi.Mode(), err)
	}
	gi, err := os.ReadFile(filepath.Join(r.ProjectVault, "project", ".gitignore"))
	if err != nil || string(gi) != "*\n!.gitignore\n" {
		t.Fatalf(".gitignore %q %v", gi, err)
	}
	// Publishing the same memory again must refuse, leaving the file alone.
	_, err = publishMemory(r, res.Memory)
	if ErrorCode(err) != CodeExists || err.Error() != "Memory "+res.Memory.ID+" already exists; writes are create-only." {
		t.Fatalf("second publish: %v", err)
	}
	for _, f := range listFiles(t, r.ProjectVault) {
		if strings.HasSuffix(f, ".tmp") {
			t.Fatalf("temporary file left behind: %s", f)
		}
	}
}

func TestMemoryPublishNeverReplaces(t *testing.T) {
	root := t.TempDir()
	existing := filepath.Join(root, "e.md")
	testenv.WriteFile(t, existing, "old")
	if err := publishCreateOnly(root, existing, []byte("new")); !errors.Is(err, errDestinationExists) {
		t.Fatalf("existing destination: %v", err)
	}
	other := t.TempDir()
	err := publishCreateOnly(root, filepath.Join(root, "..", filepath.Base(other), "y.md"), []byte("x"))
	if err == nil || !strings.HasPrefix(err.Error(), "Refusing to write memory outside the install root: '") {
		t.Fatalf("escape: %v", err)
	}
	if len(listFiles(t, root)) != 1 || len(listFiles(t, other)) != 0 {
		t.Fatal("unexpected files after refused publications")
	}
	if b, err := os.ReadFile(existing); err != nil || string(b) != "old" {
		t.Fatalf("existing destination changed: %q %v", b, err)
	}
	dest := filepath.Join(root, "x.md")
	symlinkOrSkip(t, filepath.Join(root, "missing"), dest)
	// The reference finds the dangling entry with lstat and cannot resolve
	// it, so containment refuses before anything is written (issue 11).
	if err := publishCreateOnly(root, dest, []byte("new")); err == nil ||
		err.Error() != "Refusing to write memory outside the install root: '"+dest+"' is not within '"+root+"'." {
		t.Fatalf("dangling symlink destination: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(root, "missing")); !os.IsNotExist(err) {
		t.Fatal("publication followed the dangling symlink")
	}
	if len(listFiles(t, root)) != 2 {
		t.Fatal("unexpected files after refused publications")
	}
}

func TestMemoryRootOverrides(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir}
	get := func(k string) string { return env[k] }
	for v, want := range map[string]string{
		" \t ":                    "memory root override must be a non-empty string.",
		strings.Repeat("a", 4097): "memory root override is too long (maximum 4096 characters).",
		"a\u202eb":                "memory root override must not contain control or bidirectional formatting characters.",
		"a\nb":                    "memory root override must not contain control or bidirectional formatting characters.",
	} {
		env["ECC_MEMORY_USER_ROOT"] = v
		if _, err := ResolveRoots(RootOptions{Cwd: dir, Getenv: get}); err == nil || err.Error() != want {
			t.Errorf("%q: %v", v, err)
		}
	}
	env["ECC_MEMORY_USER_ROOT"] = " rel/u "
	env["ECC_MEMORY_PROJECT_ROOT"] = "/abs/p/../q"
	r, err := ResolveRoots(RootOptions{Cwd: dir, Getenv: get})
	if err != nil {
		t.Fatal(err)
	}
	// On Windows "/abs/p/../q" is rooted on the working directory's drive.
	team := filepath.Join(filepath.VolumeName(dir)+string(filepath.Separator), "abs", "q", "team")
	if r.UserVault != filepath.Join(dir, "rel", "u") || r.ScopeRoot("team") != team || r.ScopeRoot("user") != r.UserVault {
		t.Fatalf("%+v", r)
	}
	// Without a .git anywhere above, the project root is the cwd itself.
	if r.ProjectRoot != dir && !strings.HasPrefix(dir, r.ProjectRoot) {
		t.Fatalf("project root %s", r.ProjectRoot)
	}
}

func TestMemoryInitScopes(t *testing.T) {
	r := testRoots(t)
	res, err := Init(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Scopes, ",") != "project,team" || len(res.Directories) != 16 {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(r.UserVault); !os.IsNotExist(err) {
		t.Fatal("init touched the user scope without being asked")
	}
	if _, err := Init(r, []string{"user"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.UserVault, "runbooks")); err != nil {
		t.Fatal(err)
	}
}

// writeMemory writes m at its canonical path under r.
func writeMemory(t testing.TB, r *Roots, m *Memory) {
	t.Helper()
	testenv.WriteFile(t, filepath.Join(r.ScopeRoot(m.Scope), m.Kind+"s", m.ID+".md"), string(m.Serialize()))
}

func mem(id string, mutate ...func(*Memory)) *Memory {
	m := &Memory{Schema: Schema, ID: id, Title: "Title " + id, Kind: "note", Scope: "project", Trust: "unreviewed",
		Status: "active", SourceHarness: "codex", TargetHarnesses: []string{"all"}, Tags: []string{}, Links: []string{},
		CreatedAt: "2026-07-26T20:00:00.000Z", UpdatedAt: "2026-07-26T20:00:00.000Z", Body: "body of " + id}
	for _, f := range mutate {
		f(m)
	}
	return m
}

func TestMemoryScanEntryBudget(t *testing.T) {
	r := testRoots(t)
	dir := filepath.Join(r.ScopeRoot("project"), "notes")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < MaxScanEntries; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.txt", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Search(r, SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Diagnostics.Truncated {
		t.Fatal("5001 entries must truncate the scan")
	}
	if _, err := Read(r, "mem_abc", ReadOptions{}); ErrorCode(err) != CodeIncomplete {
		t.Fatalf("read over a truncated scan: %v", err)
	}
}

func TestMemoryScanDepthAndBytes(t *testing.T) {
	r := testRoots(t)
	root := r.ScopeRoot("project")
	deep := filepath.Join(root, "notes", "2", "3", "4", "5", "6", "7", "8")
	testenv.WriteFile(t, filepath.Join(deep, "ok.md"), string(mem("mem_deep_ok").Serialize()))
	d, err := Doctor(r, DoctorOptions{})
	if err != nil || d.MemoryCount != 1 || d.Truncated || !d.OK {
		t.Fatalf("depth 8: %+v %v", d, err)
	}
	if err := os.Mkdir(filepath.Join(deep, "9"), 0o700); err != nil {
		t.Fatal(err)
	}
	if d, err = Doctor(r, DoctorOptions{}); err != nil || !d.Truncated || d.OK {
		t.Fatalf("depth 9 must truncate: %+v %v", d, err)
	}

	r = testRoots(t)
	big := strings.Repeat("x", 130000)
	for i := 0; i < 130; i++ {
		writeMemory(t, r, mem(fmt.Sprintf("mem_big_%03d", i), func(m *Memory) { m.Body = big }))
	}
	s, err := Search(r, SearchOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Diagnostics.Truncated || s.Diagnostics.ScannedBytes > MaxScanBytes || s.Diagnostics.ScannedBytes < MaxScanBytes-131072 {
		t.Fatalf("byte budget: %+v", s.Diagnostics)
	}
}

func TestMemoryReadWithoutLeakingPartialResults(t *testing.T) {
	r := testRoots(t)
	writeMemory(t, r, mem("mem_target"))
	testenv.WriteFile(t, filepath.Join(r.ScopeRoot("team"), "notes", "broken.md"), "---\nnot: valid\n---\n\nbody\n")
	res, err := Read(r, "mem_target", ReadOptions{})
	if res != nil || ErrorCode(err) != CodeIncomplete || err.Error() != IncompleteMessage {
		t.Fatalf("got %+v, %v", res, err)
	}
	if res, err = Read(r, "mem_target", ReadOptions{Scopes: []string{"project"}}); err != nil || res.Memory.ID != "mem_target" {
		t.Fatalf("project-only read: %v", err)
	}
}

func TestMemoryReadBacklinksAndHarnessFilter(t *testing.T) {
	r := testRoots(t)
	writeMemory(t, r, mem("mem_target", func(m *Memory) { m.Links = []string{"mem_target"} }))
	for i := 0; i < 101; i++ {
		writeMemory(t, r, mem(fmt.Sprintf("mem_src_%03d", 100-i), func(m *Memory) { m.Links = []string{"mem_target"} }))
	}
	writeMemory(t, r, mem("mem_claude_only", func(m *Memory) {
		m.Links = []string{"mem_target"}
		m.TargetHarnesses = []string{"claude"}
		m.Scope = "team"
	}))
	writeMemory(t, r, mem("mem_rejected", func(m *Memory) { m.Links = []string{"mem_target"}; m.Status = "rejected" }))
	res, err := Read(r, "mem_target", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Backlinks) != 100 || !res.BacklinksTruncated || res.Backlinks[0].ID != "mem_claude_only" || res.Backlinks[1].ID != "mem_src_000" {
		t.Fatalf("backlinks %d %v first %s", len(res.Backlinks), res.BacklinksTruncated, res.Backlinks[0].ID)
	}
	res, err = Read(r, "mem_target", ReadOptions{TargetHarness: "codex"})
	if err != nil || !res.BacklinksTruncated || len(res.Backlinks) != 100 || res.Backlinks[0].ID != "mem_src_000" || res.Backlinks[99].ID != "mem_src_099" {
		t.Fatalf("harness-filtered backlinks: %v %d", err, len(res.Backlinks))
	}
	if _, err := Read(r, "mem_claude_only", ReadOptions{TargetHarness: "codex"}); ErrorCode(err) != CodeNotFound {
		t.Fatalf("other harness's memory must read as not found: %v", err)
	}
	if _, err := Read(r, "mem_rejected", ReadOptions{}); err != nil {
		t.Fatalf("non-active memories stay readable: %v", err)
	}
}

func TestMemoryDoctorReport(t *testing.T) {
	r := testRoots(t)
	writeMemory(t, r, mem("mem_zzzz", func(m *Memory) { m.Links = []string{"mem_gone_1"} }))
	writeMemory(t, r, mem("mem_aaaa", func(m *Memory) { m.Links = []string{"mem_gone_2", "mem_zzzz"}; m.Kind = "fact" }))
	writeMemory(t, r, mem("mem_dup", func(m *Memory) { m.Kind = "fact" }))
	writeMemory(t, r, mem("mem_dup", func(m *Memory) { m.Scope = "team" }))
	writeMemory(t, r, mem("mem_hidden", func(m *Memory) { m.TargetHarnesses = []string{"claude"}; m.Status = "superseded" }))
	writeMemory(t, r, mem("mem_link_hidden", func(m *Memory) { m.Links = []string{"mem_hidden"} }))
	before := listFiles(t, r.ProjectVault)
	d, err := Doctor(r, DoctorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := jsjson.MarshalCompact(d.JSON())
	for _, want := range []string{`"ok":false,"memoryCount":6`,
		`"duplicateIds":[{"id":"mem_dup","paths":["project:facts/mem_dup.md","team:notes/mem_dup.md"]}],"duplicateIdCount":1`,
		`"brokenLinks":[{"sourceId":"mem_aaaa","targetId":"mem_gone_2","path":"project:facts/mem_aaaa.md"},{"sourceId":"mem_zzzz","targetId":"mem_gone_1","path":"project:notes/mem_zzzz.md"}],"brokenLinkCount":2`} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %s:\n%s", want, got)
		}
	}
	// With a harness identity, links to memories hidden from it are broken.
	d, err = Doctor(r, DoctorOptions{TargetHarness: "codex"})
	if err != nil || d.MemoryCount != 5 || d.BrokenLinkCount != 3 {
		t.Fatalf("harness doctor: %+v %v", d, err)
	}
	if c := jsjson.MarshalCompact(d.CountsJSON()); strings.Contains(c, "mem_") || !strings.HasPrefix(c, `{"schemaVersion":"ecc.memory.doctor.v1","ok":false,"memoryCount":5,"invalidFileCount":0,`) {
		t.Fatalf("counts: %s", c)
	}
	if after := listFiles(t, r.ProjectVault); strings.Join(after, "\n") != strings.Join(before, "\n") {
		t.Fatal("doctor changed the vault")
	}
}

// A killed save's temporary file is removed by the next save into the same
// scope once it is fsx.StaleTempAge old, in any kind directory; a fresh one
// (a save that may still be running) and a user's own dot-file stay
// (issue 11 item 1).
func TestMemorySaveSweepsStaleTemps(t *testing.T) {
	r := testRoots(t)
	root := filepath.Join(r.ProjectVault, "project")
	stale := filepath.Join(root, "facts", ".ecc-memory-4242-0f8fad5b-d9cb-469f-a165-70867728950e.tmp")
	fresh := filepath.Join(root, "facts", ".ecc-memory-4243-7c9e6679-7425-40de-944b-e07fc1f90ae7.tmp")
	other := filepath.Join(root, "facts", ".notes.tmp")
	for _, p := range []string{stale, fresh, other} {
		testenv.WriteFile(t, p, "partial")
	}
	old := time.Now().Add(-fsx.StaleTempAge - time.Minute)
	for _, p := range []string{stale, other} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Save(r, SaveInput{Title: "Sweep", Body: "body", Kind: "lesson", Now: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{stale: false, fresh: true, other: true} {
		if _, err := os.Lstat(p); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
