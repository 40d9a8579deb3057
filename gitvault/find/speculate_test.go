package find

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
)

// settle makes every file and directory below root safely older than
// any indexing time (see old), and waits until their change times, which
// that moved, are out of the racy window (shortened for the test).
func settle(t *testing.T, root string) {
	t.Helper()
	defer time.Sleep(time.Duration(2 * racyNs))
	ts := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return os.Chtimes(p, ts, ts)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checked parses and checks a query as Find does.
func checked(t *testing.T, opt Options) (*Query, Options) {
	t.Helper()
	q, err := ParseQuery(opt.Query)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkOptions(&opt); err != nil {
		t.Fatal(err)
	}
	return q, opt
}

// sequentialFind is Find without the speculative path: sync, then query.
func sequentialFind(t *testing.T, eng *gitvault.Engine, opt Options) *Result {
	t.Helper()
	q, opt := checked(t, opt)
	src := sourcesOf(opt)
	s, rep, err := open(eng.WS, src, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	res := &Result{Query: q.Raw, Index: rep}
	if err := s.query(q, opt, src, res); err != nil {
		t.Fatal(err)
	}
	return res
}

// trySpeculate calls the speculative path as Find does.
func trySpeculate(t *testing.T, eng *gitvault.Engine, opt Options) (*Result, bool) {
	t.Helper()
	q, opt := checked(t, opt)
	res, pre := speculate(eng.WS, q, opt, sourcesOf(opt))
	if pre != nil && pre.current != nil {
		pre.current.close() // Find's open would take it; on Windows an open index cannot be deleted
	}
	return res, res != nil
}

// TestSpeculativeAnswer: on a vault at rest the speculative answer is the
// sequential path's, byte for byte, for every kind of query; after any
// change to a source it is refused, and Find sees the change.
func TestSpeculativeAnswer(t *testing.T) {
	defer func(g int64) { racyNs = g }(racyNs)
	racyNs = int64(50 * time.Millisecond)
	eng := newVault(t, true)
	r := roots(t, eng)
	writeFiller(t, eng, r, 40, 40, 7)
	writePage(t, eng, "dep", pageText("note", "go", "deprecated", "old token flow", "the token refresh is done here. See [[new]]."))
	writePage(t, eng, "new", pageText("decision", "api", "active", "token refresh", "token refresh, the new way"))
	writeMemory(t, r, memSpec{ID: "mem_tok", Title: "token refresh", Kind: "fact", Body: "refresh tokens early.", Tags: []string{"auth"}})
	day := filepath.Join(eng.WS.Daily, "2026-03-04")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(day, "entry.md"), []byte("- token refresh rotated\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	settle(t, eng.WS.Root)
	queries := []Options{
		{Query: "token refresh"},
		{Query: "token", Daily: true},
		{Query: "refresh", Types: []string{"decision"}},
		{Query: "token", Tags: []string{"auth"}},
		{Query: "queue -worker", Limit: 3},
		{Query: `"token refresh"`, Scopes: []string{"project"}},
	}
	for _, o := range queries {
		// The first query builds the index or records the fingerprints
		// of the sources it covers (the memory scan's is one for the
		// scopes last asked for); the next is warm.
		mustFind(t, eng, o)
		got, ok := trySpeculate(t, eng, o)
		if !ok {
			t.Fatalf("%+v: a vault at rest must be answered speculatively", o)
		}
		if want := sequentialFind(t, eng, o); !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: speculative answer\n%+v\nsequential\n%+v", o, got, want)
		}
		syncs := 0
		o.Syncing = func() { syncs++ }
		mustFind(t, eng, o)
		if syncs != 0 {
			t.Errorf("%+v: a warm answer called Syncing %d times", o, syncs)
		}
	}

	changes := []struct {
		name   string
		change func()
		opt    Options
		want   string // a hit the change brings
	}{
		{"edited page", func() {
			writePage(t, eng, "new", pageText("decision", "api", "active", "token refresh", "token refresh with a wombat"))
		}, Options{Query: "wombat"}, "EchoesVault/pages/new.md"},
		{"new page", func() {
			writePage(t, eng, "added", pageText("note", "go", "active", "a numbat", "numbat"))
		}, Options{Query: "numbat"}, "EchoesVault/pages/added.md"},
		{"new memory", func() {
			writeMemory(t, r, memSpec{ID: "mem_new", Title: "quoll", Kind: "fact", Body: "a quoll."})
		}, Options{Query: "quoll"}, "mem_new"},
		{"new daily entry", func() {
			if err := os.WriteFile(filepath.Join(day, "more.md"), []byte("- a bilby\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, Options{Query: "bilby", Daily: true}, "EchoesVault/daily/2026-03-04/more.md"},
	}
	for _, c := range changes {
		c.change()
		// Racy (just written): refused.
		if _, ok := trySpeculate(t, eng, c.opt); ok {
			t.Errorf("%s, racy: answered speculatively", c.name)
		}
		settle(t, eng.WS.Root)
		// Aged, so only the fingerprint tells: refused too.
		if _, ok := trySpeculate(t, eng, c.opt); ok {
			t.Errorf("%s: answered speculatively", c.name)
		}
		syncs := 0
		c.opt.Syncing = func() { syncs++ }
		res := mustFind(t, eng, c.opt)
		if syncs != 1 {
			t.Errorf("%s: Syncing called %d times, want once", c.name, syncs)
		}
		if got := hitNames(res); len(got) == 0 || got[0] != c.want {
			t.Errorf("%s: hits %v, want %s first", c.name, got, c.want)
		}
		if res.Index.Updated == 0 {
			t.Errorf("%s: nothing re-indexed: %+v", c.name, res.Index)
		}
	}

	// A deleted page: refused, and gone from the answer.
	if err := os.Remove(filepath.Join(eng.WS.Pages, "added.md")); err != nil {
		t.Fatal(err)
	}
	if _, ok := trySpeculate(t, eng, Options{Query: "numbat"}); ok {
		t.Error("deleted page: answered speculatively")
	}
	if res := mustFind(t, eng, Options{Query: "numbat"}); len(res.Hits) != 0 || res.Index.Removed != 1 {
		t.Errorf("deleted page: %+v %v", res.Index, hitNames(res))
	}

	// No index: refused, and Find builds it.
	cache, err := eng.WS.LocalCacheDir("find")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	if _, ok := trySpeculate(t, eng, Options{Query: "token"}); ok {
		t.Error("no index: answered speculatively")
	}
	if res := mustFind(t, eng, Options{Query: "token"}); !res.Index.Rebuilt {
		t.Errorf("no index: %+v", res.Index)
	}
}
