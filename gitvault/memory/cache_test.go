package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/jsjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

func shortMemoryGranule(t *testing.T) {
	old := cacheGranule
	cacheGranule = int64(5 * time.Millisecond)
	t.Cleanup(func() { cacheGranule = old })
}

func settleMemory() { time.Sleep(time.Duration(3 * cacheGranule)) }

// withCache is r with a cache: what a long-lived server resolves per call.
func withCache(r *Roots, c *Cache) *Roots {
	rc := *r
	rc.cache = c
	return &rc
}

// everything renders the results of search, read and doctor.
func everything(t *testing.T, r *Roots, id string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(scanFingerprint(t, r, []string{"project", "team", "user"}) + "\n")
	if resp, err := Search(r, SearchOptions{Query: "word body", Scopes: []string{"project", "team"}, Limit: 100}); err != nil {
		b.WriteString("search error: " + err.Error() + "\n")
	} else {
		b.WriteString(jsjson.MarshalCompact(resp.JSON()) + "\n")
	}
	if res, err := Read(r, id, ReadOptions{}); err != nil {
		b.WriteString("read error: " + err.Error() + "\n")
	} else {
		b.WriteString(res.Path + jsjson.MarshalCompact(res.Memory.Full()) + jsjson.MarshalCompact(res.BacklinksJSON()) + "\n")
	}
	if rep, err := Doctor(r, DoctorOptions{}); err != nil {
		b.WriteString("doctor error: " + err.Error() + "\n")
	} else {
		b.WriteString(jsjson.MarshalCompact(rep.JSON()))
	}
	return b.String()
}

func memPath(r *Roots, m *Memory) string {
	return filepath.Join(r.ScopeRoot(m.Scope), m.Kind+"s", m.ID+".md")
}

// Through additions, removals, same-size edits with the old mtime put
// back, replacements, invalid files and symlinks, a cached scan returns
// exactly what an uncached one does, and a warm scan of an unchanged
// vault opens no file.
func TestMemoryCacheMatchesUncachedScan(t *testing.T) {
	shortMemoryGranule(t)
	r := testRoots(t)
	var ms []*Memory
	for i := range 60 {
		m := mem(fmt.Sprintf("mem_cache_%04d", i), func(m *Memory) {
			m.Kind = Kinds[i%len(Kinds)]
			if i%4 == 0 {
				m.Scope = "team"
			}
			m.Body = strings.Repeat("word ", i%7+1)
			if i > 0 {
				m.Links = []string{"mem_cache_0000"}
			}
		})
		ms = append(ms, m)
		writeMemory(t, r, m)
	}
	proj := r.ScopeRoot("project")
	testenv.WriteFile(t, filepath.Join(proj, "notes", "bad.md"), "---\nnot: valid\n---\n\nbody\n")
	testenv.WriteFile(t, filepath.Join(proj, "notes", "latin.md"), "---\n\xe9\n---\n")
	c := NewCache()
	rc := withCache(r, c)
	check := func(step string) {
		t.Helper()
		got, want := everything(t, rc, "mem_cache_0000"), everything(t, r, "mem_cache_0000")
		if got != want {
			t.Fatalf("%s: cached results differ:\n%s\n---\n%s", step, got, want)
		}
	}
	check("cold")
	settleMemory()
	check("settled")
	before := c.reads.Load()
	check("warm")
	// Only latin.md, whose guarded read fails (not UTF-8: failed reads
	// are never cached), is opened again, once by each of the four scans of
	// the project scope (the fingerprint, search, read, doctor). bad.md
	// reads fine and its diagnostic is cached.
	if n := c.reads.Load() - before; n != 4 {
		t.Errorf("warm scans opened %d files, want 4 (latin.md only)", n)
	}

	// A same-size edit with the mtime restored (the change time moves).
	p := memPath(r, ms[3])
	fi, _ := os.Stat(p)
	edited := strings.Replace(string(ms[3].Serialize()), "word", "WORD", 1)
	testenv.WriteFile(t, p, edited)
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	check("same-size edit")
	// A replacement by rename with the same size and mtime.
	p = memPath(r, ms[5])
	fi, _ = os.Stat(p)
	tmp := p + ".tmp"
	testenv.WriteFile(t, tmp, strings.Replace(string(ms[5].Serialize()), "Title", "TITLE", 1))
	if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	check("replacement")
	// A removal, an addition, a file turned invalid, a file turned into a
	// symlink where the system can make one.
	if err := os.Remove(memPath(r, ms[7])); err != nil {
		t.Fatal(err)
	}
	writeMemory(t, r, mem("mem_cache_new", func(m *Memory) { m.Body = "word new" }))
	testenv.WriteFile(t, memPath(r, ms[9]), "---\nbroken\n")
	if p := memPath(r, ms[10]); os.Remove(p) == nil {
		trySymlink(t, memPath(r, ms[11]), p)
	}
	check("changes")
	settleMemory()
	check("changes settled")
	// The read of a now-missing id, and a duplicate.
	writeMemory(t, r, mem("mem_cache_0000", func(m *Memory) { m.Kind = "fact" }))
	check("duplicate")
}

// Truncation by the byte budget: the cached scan stops where the uncached
// one does.
func TestMemoryCacheByteBudget(t *testing.T) {
	shortMemoryGranule(t)
	r := testRoots(t)
	big := strings.Repeat("x", 130000)
	for i := range 140 {
		writeMemory(t, r, mem(fmt.Sprintf("mem_big_%03d", i), func(m *Memory) { m.Body = big[:130000-i*7] }))
	}
	rc := withCache(r, NewCache())
	for round := range 3 {
		for _, scopes := range [][]string{{"project", "team"}, {"team", "project"}} {
			got, want := scanFingerprint(t, rc, scopes), scanFingerprint(t, r, scopes)
			if got != want || !strings.Contains(got, `"truncated":true`) {
				t.Fatalf("round %d %v: cached scan differs or did not truncate", round, scopes)
			}
		}
		settleMemory()
	}
}

// The cache keeps at most cacheMaxRoots roots and cacheMaxBytes of text,
// evicting the least recently used root.
func TestMemoryCacheBounded(t *testing.T) {
	c := NewCache()
	file := func(size int) map[string]cachedFile {
		return map[string]cachedFile{"notes/a.md": {o: fileOutcome{readOK: true, size: size}}}
	}
	for i := range cacheMaxRoots + 3 {
		c.publish("project", fmt.Sprintf("/r%d", i), file(10))
		c.files("project", "/r3") // keep one root in use
	}
	if len(c.roots) != cacheMaxRoots || c.files("project", "/r3") == nil || c.files("project", "/r0") != nil {
		t.Errorf("after %d roots: %d kept, r3 kept=%v, r0 kept=%v", cacheMaxRoots+3, len(c.roots),
			c.files("project", "/r3") != nil, c.files("project", "/r0") != nil)
	}
	c.publish("team", "/big", file(cacheMaxBytes-5))
	if c.bytes > cacheMaxBytes || c.files("team", "/big") == nil {
		t.Errorf("bytes %d over the bound %d, or the new root was dropped", c.bytes, cacheMaxBytes)
	}
	c.publish("team", "/huge", file(cacheMaxBytes+1))
	if c.files("team", "/huge") != nil || c.bytes > cacheMaxBytes {
		t.Errorf("a root over the bound was kept (bytes %d)", c.bytes)
	}
	total := 0
	for _, rf := range c.roots {
		total += rf.bytes
	}
	if total != c.bytes {
		t.Errorf("byte count %d, roots hold %d", c.bytes, total)
	}
}

// A warm scan hands search the lowercased fields the previous search
// computed for an unchanged file, and a new, empty set for a changed one.
func TestMemoryCacheKeepsFoldedFields(t *testing.T) {
	shortMemoryGranule(t)
	r := withCache(testRoots(t), NewCache())
	a := mem("mem_fold_0001", func(m *Memory) { m.Title = "Alpha Title" })
	b := mem("mem_fold_0002", func(m *Memory) { m.Title = "Beta Title" })
	writeMemory(t, r, a)
	writeMemory(t, r, b)
	settleMemory()
	if _, err := Search(r, SearchOptions{Query: "title"}); err != nil {
		t.Fatal(err)
	}
	first := folds(t, r)
	for id, f := range first {
		if f.title == "" {
			t.Fatalf("%s: search left its folded fields empty", id)
		}
	}
	b.Title = "Gamma Title"
	writeMemory(t, r, b)
	settleMemory()
	second := folds(t, r)
	if second[a.ID] != first[a.ID] {
		t.Error("unchanged memory: folded fields not reused")
	}
	if second[b.ID] == first[b.ID] {
		t.Error("changed memory: stale folded fields reused")
	}
	res, err := Search(r, SearchOptions{Query: "gamma"})
	if err != nil || len(res.Results) != 1 || res.Results[0].Memory.ID != b.ID {
		t.Fatalf("search after edit: %+v, %v", res, err)
	}
}

func folds(t *testing.T, r *Roots) map[string]*folded {
	t.Helper()
	sr, err := scan(r, []string{"project", "team"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*folded{}
	for _, e := range sr.Entries {
		if e.fold == nil {
			t.Fatalf("%s: no folded fields", e.Path)
		}
		out[e.Memory.ID] = e.fold
	}
	return out
}
