package gitvault

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// shortGranule lowers the racy granule for a test, so pages written a few
// milliseconds ago can be trusted without sleeping for seconds; the rule
// itself is unchanged.
func shortGranule(t *testing.T) {
	old := cacheGranule
	cacheGranule = int64(5 * time.Millisecond)
	t.Cleanup(func() { cacheGranule = old })
}

// settle waits until every file written so far is safely older than now.
func settle() { time.Sleep(time.Duration(3 * cacheGranule)) }

// cacheVault is an initialized vault in a Git repository (the only place
// the cache file is kept) with n valid pages.
func cacheVault(t *testing.T, n int) *Engine {
	t.Helper()
	root := gitrepotest.New(t).Init(filepath.Join(t.TempDir(), "repo"))
	e, err := Open(Options{Workspace: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := testInit(e); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		writePage(t, e, fmt.Sprintf("p%03d.md", i), page(fmt.Sprintf("Summary %d.", i), "active"))
	}
	return e
}

func writePage(t *testing.T, e *Engine, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.WS.Pages, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// reopen is a new engine on the same workspace: a new process.
func reopen(t *testing.T, e *Engine, noCache bool) *Engine {
	t.Helper()
	f, err := Open(Options{Workspace: e.WS.Root})
	if err != nil {
		t.Fatal(err)
	}
	f.noCache = noCache
	return f
}

// outputs is everything the cache may influence, rendered: the index a
// rebuild writes and the pages as inspect loads them.
func outputs(t *testing.T, e *Engine) string {
	t.Helper()
	idx, err := e.Render(nil)
	text := ""
	if err != nil {
		text = "render error: " + ErrorMessage(err)
	} else {
		text = idx.Text + idx.SHA256
	}
	// What inspect reads through the cache (gitvault/health): every page
	// loaded with its read and parse errors and conflict flag.
	names, err := DirSource{Dir: e.WS.Pages}.PageNames()
	text += fmt.Sprintf("\nnames %q %v", names, err)
	for i, l := range e.LoadPages(names, nil, true) {
		text += fmt.Sprintf("\n%s read=%v parse=%v conflict=%v", names[i], l.ReadErr, l.ParseErr, l.Conflict)
		if l.Page != nil {
			text += fmt.Sprintf(" %q %q %q %q %v", l.Page.Text, l.Page.Type, l.Page.Status, l.Page.Summary, l.Page.HasSummary)
		}
	}
	return text
}

func hydrate(t *testing.T, e *Engine) {
	t.Helper()
	if _, err := e.RebuildIndex(); err != nil {
		t.Fatal(err)
	}
}

func cacheFile(t *testing.T, e *Engine) string {
	t.Helper()
	p, err := e.WS.pageCachePath()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// On an unchanged vault a new process reads no page; one changed page
// costs one read; outputs are those of an engine without a cache.
func TestPageCacheReadsOnlyWhatChanged(t *testing.T) {
	shortGranule(t)
	e := cacheVault(t, 20)
	settle()
	hydrate(t, reopen(t, e, false))
	if _, err := os.Stat(cacheFile(t, e)); err != nil {
		t.Fatalf("rebuild-index wrote no cache file: %v", err)
	}
	settle()
	warm := reopen(t, e, false)
	got := outputs(t, warm)
	if n := warm.pages.reads.Load(); n != 0 {
		t.Errorf("unchanged vault: %d pages read, want 0", n)
	}
	if want := outputs(t, reopen(t, e, true)); got != want {
		t.Errorf("cached outputs differ from uncached:\n%s\n---\n%s", got, want)
	}
	writePage(t, e, "p007.md", page("Changed summary.", "deprecated"))
	one := reopen(t, e, false)
	got = outputs(t, one)
	// render and inspect each read the changed page once (it is racy
	// right after the write, so inspect reads it again).
	if n := one.pages.reads.Load(); n < 1 || n > 2 {
		t.Errorf("one changed page: %d reads, want 1 or 2", n)
	}
	if want := outputs(t, reopen(t, e, true)); got != want {
		t.Errorf("after one change, cached outputs differ:\n%s\n---\n%s", got, want)
	}
	if !strings.Contains(got, "DEPRECATED — Changed summary.") {
		t.Errorf("the change is not in the index:\n%s", got)
	}
	// A removed page leaves the cache (and the outputs) with it.
	if err := os.Remove(filepath.Join(e.WS.Pages, "p011.md")); err != nil {
		t.Fatal(err)
	}
	gone := reopen(t, e, false)
	if got, want := outputs(t, gone), outputs(t, reopen(t, e, true)); got != want {
		t.Errorf("after a removal, cached outputs differ:\n%s\n---\n%s", got, want)
	}
	if _, ok := gone.pages.entries["p011.md"]; ok || len(gone.pages.entries) != 19 {
		t.Errorf("after a removal: %d entries, p011.md kept=%v", len(gone.pages.entries), ok)
	}
}

// Edits inside one timestamp granule: the same size and, through
// os.Chtimes, the same modification time as the cached entry. Whether the
// change time or the racy rule catches them, no output may differ from an
// engine without a cache, in this process or the next.
func TestPageCacheSameGranuleEdits(t *testing.T) {
	e := cacheVault(t, 5) // the real two-second granule
	hydrate(t, e)
	p := filepath.Join(e.WS.Pages, "p002.md")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	mtime := fi.ModTime()
	base := page("Summary 2.", "active")
	for i, edited := range []string{
		page("Summary X.", "active"),
		page("Summary Y.", "closed"),
		strings.Replace(base, "---\ntype", "+++\ntype", 1), // invalid frontmatter
		base,
	} {
		if len(edited) != len(base) {
			t.Fatalf("edit %d changes the size", i)
		}
		writePage(t, e, "p002.md", edited)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		for _, eng := range []*Engine{e, reopen(t, e, false)} {
			got := outputs(t, eng)
			if want := outputs(t, reopen(t, e, true)); got != want {
				t.Fatalf("edit %d: cached outputs differ:\n%s\n---\n%s", i, got, want)
			}
		}
		_, _ = e.RebuildIndex() // refuses the invalid page; the others rewrite the cache
	}
}

// The racy rule on its own: an entry whose stamp matches the file but
// which was recorded within the granule of the file's times is not
// trusted; the same entry recorded safely later is (which is why the rule
// is needed where the change time does not move).
func TestPageCacheRacyEntryIsReread(t *testing.T) {
	shortGranule(t)
	e := cacheVault(t, 1)
	name := "p000.md"
	st, err := fsx.LstatStamp(filepath.Join(e.WS.Pages, name))
	if err != nil {
		t.Fatal(err)
	}
	stale := cachedPage{stamp: st, typ: "note", status: "active", summary: "Stale summary.", hasSummary: true, conflictKnown: true}
	for _, c := range []struct {
		since   int64
		trusted bool
	}{
		{max(st.Mtime, st.Ctime), false},
		{max(st.Mtime, st.Ctime) + cacheGranule/2, false},
		{max(st.Mtime, st.Ctime) + 2*cacheGranule, true},
	} {
		pc := newPageCache(e.WS.Pages, "")
		entry := stale
		entry.since = c.since
		pc.entries[name] = &entry
		got := loadAndParseCached(pc, []string{name}, nil, true)
		if got[0].Page == nil {
			t.Fatalf("page did not load: %+v", got[0])
		}
		if trusted := got[0].Page.Summary == "Stale summary."; trusted != c.trusted {
			t.Errorf("since = stamp + %d ns: trusted = %v, want %v", c.since-max(st.Mtime, st.Ctime), trusted, c.trusted)
		}
	}
}

// Loaded pages equal loadAndParse's, field by field, for valid, invalid,
// unreadable and conflicted pages, cold and warm, with and without the
// conflict scan.
func TestPageCacheMatchesLoadAndParse(t *testing.T) {
	shortGranule(t)
	e := cacheVault(t, 3)
	writePage(t, e, "bad.md", "no frontmatter\n")
	writePage(t, e, "conflict.md", page("C.", "active")+"<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n")
	writePage(t, e, "latin1.md", "---\ntype: note\n\xff\n")
	writePage(t, e, "crlf.md", strings.ReplaceAll(page("Windows lines.", "Active"), "\n", "\r\n"))
	settle()
	names, err := DirSource{e.WS.Pages}.PageNames()
	if err != nil {
		t.Fatal(err)
	}
	pc := newPageCache(e.WS.Pages, "")
	for round := range 3 {
		for _, conflict := range []bool{false, true} {
			want := loadAndParse(DirSource{e.WS.Pages}, names, nil, conflict)
			got := loadAndParseCached(pc, names, nil, conflict)
			if !reflect.DeepEqual(describe(got), describe(want)) {
				t.Errorf("round %d conflict=%v:\n got %v\nwant %v", round, conflict, describe(got), describe(want))
			}
		}
		settle()
	}
	if len(pc.entries) != 4 { // the three valid pages and crlf.md
		t.Errorf("cached entries %d, want 4 (failures are never cached)", len(pc.entries))
	}
}

func describe(ls []LoadedPage) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		s := fmt.Sprintf("read=%v parse=%v conflict=%v", l.ReadErr, l.ParseErr, l.Conflict)
		if l.Page != nil {
			s += fmt.Sprintf(" page=%+v", *l.Page)
		}
		out[i] = s
	}
	return out
}

// A corrupt, truncated, foreign or outdated cache file is never trusted
// (outputs stay exact even though its entries would match every stamp)
// and the next writer replaces it with a valid one.
func TestPageCacheUntrustedFilesIgnored(t *testing.T) {
	shortGranule(t)
	e := cacheVault(t, 4)
	settle()
	hydrate(t, e)
	path := cacheFile(t, e)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A forged cache: every entry's stamp is current and trusted, but the
	// summaries are wrong. Each variant below damages it in one way.
	entries, written, ok := decodePageCache(good, e.WS.Pages)
	if !ok {
		t.Fatal("the written cache does not decode")
	}
	for n, en := range entries {
		en.summary = "Forged."
		entries[n] = en
	}
	forged := encodePageCache(entries, e.WS.Pages, written)
	flip := bytes.Clone(forged)
	flip[len(flip)/2] ^= 1
	// Outdated: another format number, and another engine version.
	format := bytes.Clone(forged[:len(forged)-32])
	format[len(pageCacheMagic)]++
	version := []byte(pageCacheMagic)
	version = binary.AppendUvarint(version, pageCacheFormat)
	version = appendString(version, "0.0.1")
	version = appendString(version, e.WS.Pages)
	version = binary.AppendVarint(version, written)
	version = binary.AppendUvarint(version, 0)
	variants := map[string][]byte{
		"bit flip":  flip,
		"truncated": forged[:len(forged)-5],
		"foreign":   encodePageCache(entries, e.WS.Pages+"-elsewhere", written),
		"format":    append(format, sha256Sum(format)...),
		"version":   append(version, sha256Sum(version)...),
		"garbage":   []byte("not a cache\n"),
		"empty":     {},
	}
	settle()
	want := outputs(t, reopen(t, e, true))
	for name, data := range variants {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := outputs(t, reopen(t, e, false)); got != want {
			t.Errorf("%s cache: outputs changed:\n%s", name, got)
		}
		hydrate(t, reopen(t, e, false))
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got, _, ok := decodePageCache(data, e.WS.Pages); !ok || len(got) != 4 {
			t.Errorf("%s cache: not replaced by a valid one (ok=%v, %d entries)", name, ok, len(got))
		}
	}
	// The control: the forged file, intact, is trusted, which is what makes
	// the variants above meaningful.
	if err := os.WriteFile(path, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	settle()
	if got := outputs(t, reopen(t, e, false)); !strings.Contains(got, "Forged.") {
		t.Error("an intact cache file was not used")
	}
}

// Read-only commands read the cache and never write it; a refused command
// writes none; inside Git the cache lives below .git/echoes and never
// shows up in inspect's lists or Git's status.
func TestPageCacheWriters(t *testing.T) {
	shortGranule(t)
	e := cacheVault(t, 3)
	path := cacheFile(t, e)
	dir := filepath.Dir(filepath.Dir(path))
	reopen(t, e, false).LoadPages(pageNames(t, e), nil, true)
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Fatalf("inspect created %s (%v)", dir, err)
	}
	if _, err := reopen(t, e, false).Upsert(func() ([]byte, error) { return []byte(`{"filename": "x", "content": "no frontmatter"}`), nil }); err == nil {
		t.Fatal("invalid upsert accepted")
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Fatalf("a refused upsert created %s (%v)", dir, err)
	}
	hydrate(t, reopen(t, e, false))
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	writePage(t, e, "p001.md", page("New.", "active"))
	writePage(t, e, "p009.md", page("Added.", "active"))
	settle()
	reopen(t, e, false).LoadPages(pageNames(t, e), nil, true)
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("inspect rewrote the cache file")
	}

	// Outside Git no command writes a cache file: .echoes-vault/ holds
	// only what the protocol lets each command write (protocol §12.5.1).
	plain := initVault(t)
	writePage(t, plain, "a.md", page("A.", "active"))
	hydrate(t, reopen(t, plain, false))
	if _, err := reopen(t, plain, false).RebuildIndex(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(plain.WS.RuntimeDir, "cache")); !os.IsNotExist(err) {
		t.Errorf("outside Git a cache directory was written (%v)", err)
	}

	sb := gitrepotest.New(t)

	root := sb.Init(filepath.Join(t.TempDir(), "repo"))
	g, err := Open(Options{Workspace: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := testInit(g); err != nil {
		t.Fatal(err)
	}
	writePage(t, g, "a.md", page("A.", "active"))
	hydrate(t, reopen(t, g, false))
	gp := cacheFile(t, g)
	if want := filepath.Join(root, ".git", "echoes", "pages"); filepath.Dir(gp) != want {
		t.Errorf("cache file %s, want it in %s", gp, want)
	}
	if _, err := os.Stat(gp); err != nil {
		t.Fatalf("no cache file in Git: %v", err)
	}
	if out := sb.Git(root, "status", "--porcelain", "--ignored", "--untracked-files=all"); strings.Contains(out, "cache") {
		t.Errorf("git status lists the cache:\n%s", out)
	}
}

// Concurrent processes: writers replacing the file while readers load it.
// Every load sees a whole file (one writer's entries, all of them) or
// none; the last file standing is valid.
func TestPageCacheConcurrentWritersAndReaders(t *testing.T) {
	e := cacheVault(t, 0)
	path := cacheFile(t, e)
	const writers, rounds = 4, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				c := newPageCache(e.WS.Pages, path)
				n := 1 + (w*rounds+r)%7
				for i := range n {
					c.entries[fmt.Sprintf("w%d-%d.md", w, i)] = &cachedPage{summary: fmt.Sprintf("%d of %d", i, n)}
				}
				c.dirty = true
				c.save()
			}
		}()
	}
	var bad []string
	var mu sync.Mutex
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range writers * rounds {
				data, err := os.ReadFile(path)
				if err != nil {
					continue // not written yet
				}
				entries, _, ok := decodePageCache(data, e.WS.Pages)
				if !ok || len(entries) == 0 || !wholeWrite(entries) {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("ok=%v entries=%d", ok, len(entries)))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if len(bad) > 0 {
		t.Errorf("readers saw %d broken files: %v", len(bad), bad[:min(len(bad), 5)])
	}
	c := loadPageCache(e.WS)
	if c.dirty || len(c.entries) == 0 {
		t.Errorf("final cache file not valid: dirty=%v entries=%d", c.dirty, len(c.entries))
	}
}

// wholeWrite reports whether entries are all of one writer's save.
func wholeWrite(entries map[string]cachedPage) bool {
	var n, writer = -1, ""
	for name, e := range entries {
		w, _, _ := strings.Cut(name, "-")
		var i, of int
		fmt.Sscanf(e.summary, "%d of %d", &i, &of)
		if (writer != "" && w != writer) || (n >= 0 && of != n) {
			return false
		}
		writer, n = w, of
	}
	return len(entries) == n
}

// The encoding round-trips, sorted, and every prefix of it is refused.
func TestPageCacheEncoding(t *testing.T) {
	entries := map[string]cachedPage{
		"b.md": {stamp: fsx.Stamp{Size: 10, Mtime: -1, Ctime: 1 << 60, Dev: 1<<64 - 1, Ino: 7}, typ: "note", status: "active", summary: "Café ☕.", hasSummary: true},
		"A.MD": {stamp: fsx.Stamp{Size: 0}, conflictKnown: true, confl: true},
	}
	data := encodePageCache(entries, "/v/pages", 42)
	got, written, ok := decodePageCache(data, "/v/pages")
	if !ok || written != 42 || !reflect.DeepEqual(got, entries) {
		t.Fatalf("round trip: ok=%v written=%d\n got %+v\nwant %+v", ok, written, got, entries)
	}
	if !bytes.Equal(encodePageCache(got, "/v/pages", 42), data) {
		t.Error("encoding is not deterministic")
	}
	for i := range len(data) {
		if _, _, ok := decodePageCache(data[:i], "/v/pages"); ok {
			t.Fatalf("prefix of %d bytes accepted", i)
		}
	}
}

func sha256Sum(b []byte) []byte { s := sha256.Sum256(b); return s[:] }

func FuzzPageCacheDecode(f *testing.F) {
	f.Add(encodePageCache(map[string]cachedPage{"a.md": {typ: "note", summary: "S."}}, "/p", 1))
	f.Add(encodePageCache(nil, "/p", 0))
	f.Add([]byte(pageCacheMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Forged trailers make random bodies reach the entry decoder.
		if len(data) > len(pageCacheMagic) && bytes.HasPrefix(data, []byte(pageCacheMagic)) {
			data = append(bytes.Clone(data), sha256Sum(data)...)
		}
		entries, written, ok := decodePageCache(data, "/p")
		if !ok {
			return
		}
		again, w2, ok2 := decodePageCache(encodePageCache(entries, "/p", written), "/p")
		if !ok2 || w2 != written || !reflect.DeepEqual(again, entries) {
			t.Fatalf("accepted input does not round-trip: %+v", entries)
		}
	})
}

// A killed writer's temporary file in the cache directory is removed by the
// next writer once stale, even when the cache itself needs no rewrite.
func TestPageCacheSweepsStaleTemps(t *testing.T) {
	shortGranule(t)
	e := cacheVault(t, 2)
	settle()
	hydrate(t, reopen(t, e, false))
	settle()
	hydrate(t, reopen(t, e, false))
	dir := filepath.Dir(cacheFile(t, e))
	base := filepath.Base(cacheFile(t, e))
	fresh := plantTemp(t, dir, "."+base+".abcd1234.tmp", 0)
	stale := plantTemp(t, dir, "."+base+".x_y_z_09.tmp", 2*fsx.StaleTempAge)
	hydrate(t, reopen(t, e, false))
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temporary file %s left (%v)", stale, err)
	}
	if _, err := os.Lstat(fresh); err != nil {
		t.Errorf("a live writer's temporary file was removed: %v", err)
	}
}

// pageNames lists e's page files as inspect does.
func pageNames(t *testing.T, e *Engine) []string {
	t.Helper()
	names, err := DirSource{Dir: e.WS.Pages}.PageNames()
	if err != nil {
		t.Fatal(err)
	}
	return names
}
