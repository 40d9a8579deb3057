package gitvault

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/fsx"
)

// The base/delta split (issue 19 item 4): after a few changed pages a
// writer rewrites only the delta file, the base stays byte for byte; a new
// process lays the delta over the base and reads no page; past
// deltaLimit the base is rewritten whole and the delta removed. Outputs
// are those of an engine without a cache at every step.
func TestPageCacheDelta(t *testing.T) {
	shortGranule(t)
	const n = 300 // deltaLimit(300) = 256
	e := cacheVault(t, n)
	settle()
	hydrate(t, reopen(t, e, false))
	base := cacheFile(t, e)
	delta := deltaPath(base)
	first, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(delta); !os.IsNotExist(err) {
		t.Fatalf("a full build left a delta file (%v)", err)
	}
	same := func(step string) string {
		t.Helper()
		settle()
		got := outputs(t, reopen(t, e, false))
		if want := outputs(t, reopen(t, e, true)); got != want {
			t.Fatalf("%s: cached outputs differ from uncached:\n%s\n---\n%s", step, got, want)
		}
		return got
	}

	writePage(t, e, "p007.md", page("Changed summary.", "deprecated"))
	if err := os.Remove(filepath.Join(e.WS.Pages, "p011.md")); err != nil {
		t.Fatal(err)
	}
	writePage(t, e, "new.md", page("New page.", "active"))
	settle()
	hydrate(t, reopen(t, e, false))
	if now, _ := os.ReadFile(base); !bytes.Equal(now, first) {
		t.Fatal("a few changes rewrote the base file")
	}
	data, err := os.ReadFile(delta)
	if err != nil {
		t.Fatalf("no delta file after a few changes: %v", err)
	}
	up, removed, _, ok := decodePageCacheDelta(data, e.WS.Pages, [32]byte(first[len(first)-sha256.Size:]))
	if !ok || len(up) != 2 || up["p007.md"].summary != "Changed summary." || up["new.md"].summary != "New page." ||
		!reflect.DeepEqual(removed, []string{"p011.md"}) {
		t.Fatalf("delta: ok=%v upserts=%v removed=%q", ok, up, removed)
	}
	got := same("after the delta")
	if !strings.Contains(got, "DEPRECATED — Changed summary.") || strings.Contains(got, "p011.md") {
		t.Fatalf("the changes are not in the outputs:\n%s", got)
	}
	warm := reopen(t, e, false)
	_ = outputs(t, warm)
	if r := warm.pages.reads.Load(); r != 0 {
		t.Fatalf("base and delta: %d pages read, want 0", r)
	}
	if len(warm.pages.entries) != n {
		t.Fatalf("base and delta: %d entries, want %d", len(warm.pages.entries), n)
	}

	// A second round of changes adds to the delta, the base stays.
	writePage(t, e, "p008.md", page("Second change.", "active"))
	settle()
	hydrate(t, reopen(t, e, false))
	if now, _ := os.ReadFile(base); !bytes.Equal(now, first) {
		t.Fatal("a second change rewrote the base file")
	}
	data, _ = os.ReadFile(delta)
	if up, removed, _, ok := decodePageCacheDelta(data, e.WS.Pages, [32]byte(first[len(first)-sha256.Size:])); !ok || len(up) != 3 || len(removed) != 1 {
		t.Fatalf("second delta: ok=%v %d upserts %d removals", ok, len(up), len(removed))
	}
	same("after the second delta")

	// Past the limit: a new base, no delta.
	for i := range 280 {
		writePage(t, e, fmt.Sprintf("p%03d.md", i), page(fmt.Sprintf("Bulk %d.", i), "active"))
	}
	settle()
	hydrate(t, reopen(t, e, false))
	if now, _ := os.ReadFile(base); bytes.Equal(now, first) {
		t.Fatal("many changes did not rewrite the base file")
	}
	if _, err := os.Lstat(delta); !os.IsNotExist(err) {
		t.Fatalf("a new base left the old delta (%v)", err)
	}
	same("after a new base")
}

// A delta file that cannot be trusted is ignored, never used: damaged,
// cut short, written over another base or for another directory, of
// another format, naming a page twice, or not a regular file. The
// control, a forged but intact delta over the current base, is used.
func TestPageCacheUntrustedDeltaIgnored(t *testing.T) {
	shortGranule(t)
	e := cacheVault(t, 4)
	settle()
	hydrate(t, e)
	path := cacheFile(t, e)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	base := [sha256.Size]byte(good[len(good)-sha256.Size:])
	entries, _, ok := decodePageCache(good, e.WS.Pages)
	if !ok {
		t.Fatal("the written cache does not decode")
	}
	en := entries["p001.md"]
	en.summary = "Forged."
	forgedEntries := map[string]cachedPage{"p001.md": en}
	names := map[string]bool{"p001.md": true}
	forged := encodePageCacheDelta(forgedEntries, names, e.WS.Pages, base, 1)
	flip := bytes.Clone(forged)
	flip[len(flip)/2] ^= 1
	other := base
	other[0] ^= 1
	format := bytes.Clone(forged[:len(forged)-sha256.Size])
	format[len(pageCacheDeltaMagic)]++
	twice := bytes.Clone(forged[:len(forged)-sha256.Size])
	// The count is the last varint before the entries: forge two copies.
	head := encodePageCacheDelta(nil, nil, e.WS.Pages, base, 1)
	head = head[:len(head)-sha256.Size-1] // without the count (0) and trailer
	entry := twice[len(head)+1:]
	twice = append(append(append(bytes.Clone(head), 2), entry...), entry...)
	variants := map[string][]byte{
		"bit flip":     flip,
		"truncated":    forged[:len(forged)-5],
		"other base":   encodePageCacheDelta(forgedEntries, names, e.WS.Pages, other, 1),
		"foreign":      encodePageCacheDelta(forgedEntries, names, e.WS.Pages+"-elsewhere", base, 1),
		"format":       append(format, sha256Sum(format)...),
		"named twice":  append(twice, sha256Sum(twice)...),
		"garbage":      []byte("not a delta\n"),
		"empty":        {},
		"base's bytes": good,
	}
	settle()
	want := outputs(t, reopen(t, e, true))
	dp := deltaPath(path)
	for name, data := range variants {
		if err := os.WriteFile(dp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, _, ok := decodePageCacheDelta(data, e.WS.Pages, base); ok {
			t.Errorf("%s delta: decoded", name)
		}
		if got := outputs(t, reopen(t, e, false)); got != want {
			t.Errorf("%s delta: outputs changed:\n%s", name, got)
		}
	}
	if err := os.Remove(dp); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dp, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := outputs(t, reopen(t, e, false)); got != want {
		t.Errorf("a directory as the delta: outputs changed:\n%s", got)
	}
	if err := os.Remove(dp); err != nil {
		t.Fatal(err)
	}
	// The control.
	if err := os.WriteFile(dp, forged, 0o644); err != nil {
		t.Fatal(err)
	}
	settle()
	if got := outputs(t, reopen(t, e, false)); !strings.Contains(got, "Forged.") {
		t.Error("an intact delta over the current base was not used")
	}
}

func TestPageCacheDeltaEncoding(t *testing.T) {
	entries := map[string]cachedPage{
		"b.md": {stamp: fsx.Stamp{Size: 10, Mtime: -1, Ctime: 1 << 60, Dev: 1<<64 - 1, Ino: 7}, typ: "note", status: "active", summary: "Café ☕.", hasSummary: true},
	}
	names := map[string]bool{"b.md": true, "gone.md": true}
	var base [sha256.Size]byte
	base[3] = 9
	data := encodePageCacheDelta(entries, names, "/v/pages", base, 42)
	up, removed, written, ok := decodePageCacheDelta(data, "/v/pages", base)
	if !ok || written != 42 || !reflect.DeepEqual(up, entries) || !reflect.DeepEqual(removed, []string{"gone.md"}) {
		t.Fatalf("round trip: ok=%v written=%d\n up %+v\nremoved %q", ok, written, up, removed)
	}
	if !bytes.Equal(encodePageCacheDelta(entries, names, "/v/pages", base, 42), data) {
		t.Error("encoding is not deterministic")
	}
	for i := range len(data) {
		if _, _, _, ok := decodePageCacheDelta(data[:i], "/v/pages", base); ok {
			t.Fatalf("prefix of %d bytes accepted", i)
		}
	}
}

func FuzzPageCacheDeltaDecode(f *testing.F) {
	var base [sha256.Size]byte
	f.Add(encodePageCacheDelta(map[string]cachedPage{"a.md": {typ: "note", summary: "S."}}, map[string]bool{"a.md": true, "b.md": true}, "/p", base, 1))
	f.Add(encodePageCacheDelta(nil, nil, "/p", base, 0))
	f.Add([]byte(pageCacheDeltaMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Forged trailers make random bodies reach the entry decoder.
		if len(data) > len(pageCacheDeltaMagic) && bytes.HasPrefix(data, []byte(pageCacheDeltaMagic)) {
			data = append(bytes.Clone(data), sha256Sum(data)...)
		}
		up, removed, written, ok := decodePageCacheDelta(data, "/p", base)
		if !ok {
			return
		}
		names := map[string]bool{}
		for n := range up {
			names[n] = true
		}
		for _, n := range removed {
			if names[n] {
				t.Fatalf("%q both upserted and removed", n)
			}
			names[n] = true
		}
		up2, removed2, w2, ok2 := decodePageCacheDelta(encodePageCacheDelta(up, names, "/p", base, written), "/p", base)
		if !ok2 || w2 != written || !reflect.DeepEqual(up2, up) || len(removed2) != len(removed) {
			t.Fatalf("accepted input does not round-trip: %+v %q", up, removed)
		}
	})
}
