package gitvault

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func evTexts(pairs ...string) []pageText {
	var out []pageText
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, pageText{Name: pairs[i], Text: pairs[i+1]})
	}
	return out
}

// evSource is an in-memory pageSource.
type evSource []pageText

func (s evSource) PageNames() ([]string, error) {
	names := make([]string, len(s))
	for i, p := range s {
		names[i] = p.Name
	}
	return names, nil
}

func (s evSource) ReadPage(name string) ([]byte, error) {
	for _, p := range s {
		if p.Name == name {
			return []byte(p.Text), p.Err
		}
	}
	return nil, errors.New("no such page")
}

// evRender renders pages given in listing order.
func evRender(texts []pageText, proposed []indexPage) (*Index, error) {
	names, _ := evSource(texts).PageNames()
	return RenderIndex(evSource(texts), names, proposed)
}

func evSummaryPage(summary, status string) string {
	return "---\ntype: t\nstack: []\nstatus: " + status + "\nsummary: " + summary + "\n---\n"
}

func TestEmptyIndex(t *testing.T) {
	idx, err := evRender(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if idx.Text != indexHeader || len(indexHeader) != 163 {
		t.Fatalf("empty index %q", idx.Text)
	}
	if idx.SHA256 != "b7782276c232f7a8dcd75f971d06b199ec4a26d4be42c810fe7e9e036e2906de" {
		t.Fatalf("sha256 %s", idx.SHA256)
	}
	if sum := sha256.Sum256([]byte(canonicalMarkerText)); hex.EncodeToString(sum[:]) != "dbcdad56c163e5966f26a1eedafb9c91596f17fd623233e8103b9865a6439585" || len(canonicalMarkerText) != 248 {
		t.Fatal("canonical marker bytes changed")
	}
}

// TestIndexWorkedExample is echoes-conformance §11.2.
func TestIndexWorkedExample(t *testing.T) {
	texts := evTexts(
		"Zed.md", evSummaryPage("deprecated already", "deprecated"),
		"b.md", evSummaryPage(`"Quoted \u00e9"`, "active"),
		"b-x.md", evSummaryPage("Old  thing\t here", "deprecated"),
	)
	idx, err := evRender(texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := indexHeader + "\n- [[b-x]]: DEPRECATED — Old thing here\n- [[b]]: Quoted é\n- [[Zed]]: deprecated already\n"
	if idx.Text != want || len(idx.Text) != 254 {
		t.Fatalf("index\n%q\nwant\n%q", idx.Text, want)
	}
	if idx.SHA256 != "be512cd8d630bf1ab185c1af44088f23c1ce49e355235a25dc953a6c3adc552e" {
		t.Fatalf("sha256 %s", idx.SHA256)
	}
}

// TestIndexOrder: the key is (casefold(NFC(file name)), NFC(file name)),
// suffix included (echoes-conformance §11.1).
func TestIndexOrder(t *testing.T) {
	names := []string{"é.md", "b.md", "straße.md", "a_b.md", "STRASSE-x.md", "b-x.md", "a.md", "B.MD.md", "Zz.md", "e\u0301x.md"}
	var texts []pageText
	for _, n := range names {
		texts = append(texts, pageText{Name: n, Text: evSummaryPage("s", "active")})
	}
	idx, err := evRender(texts, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range idx.Pages {
		got = append(got, p.Name)
	}
	want := []string{"a.md", "a_b.md", "b-x.md", "b.md", "B.MD.md", "STRASSE-x.md", "straße.md", "Zz.md", "é.md", "e\u0301x.md"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order\n got %q\nwant %q", got, want)
	}
	if !strings.Contains(idx.Text, "\n- [[éx]]: s\n") {
		t.Fatal("row slug is not NFC")
	}
}

func TestIndexDeprecatedPrefix(t *testing.T) {
	long := strings.Repeat("x", 160)
	idx, err := evRender(evTexts(
		"a.md", evSummaryPage(long, "DePrecated"),
		"b.md", evSummaryPage("DEPRECATED: gone", "deprecated"),
		"c.md", evSummaryPage("Deprecated-ish", "active"),
	), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := indexHeader + "\n- [[a]]: DEPRECATED — " + long + "\n- [[b]]: DEPRECATED: gone\n- [[c]]: Deprecated-ish\n"
	if idx.Text != want {
		t.Fatalf("index %q", idx.Text)
	}
}

func TestIndexFailuresAllOrNothing(t *testing.T) {
	good := evSummaryPage("s", "active")
	cases := []struct {
		texts    []pageText
		proposed []indexPage
		err      string
	}{
		{evTexts("Legacy.md", good, "LEGACY.md", good), nil, "Page filenames collide across filesystems: 'Legacy' and 'LEGACY'."},
		{evTexts("straße.md", good, "STRASSE.md", good), nil, "Page filenames collide across filesystems: 'straße' and 'STRASSE'."},
		{evTexts("e\u0301.md", good, "\u00e9.md", good), nil, "Page filenames collide across filesystems: 'é' and 'é'."},
		{evTexts("a.md", good, "b.md", "bad", "c.md", "---\n"), nil, "Cannot generate index from b.md: Every page must begin with YAML frontmatter."},
		{evTexts("a.md", good, "b.md", good+"=======\n"), nil, "Cannot generate index from b.md: Page contains unresolved Git conflict markers."},
		{[]pageText{{Name: "a.md", Text: "bad"}, {Name: "b.md", Err: errors.New("boom")}}, nil, "Cannot read page b.md: boom"},
		{evTexts("a.md", good), []indexPage{{Name: "A.md", Page: mustParse(t, good)}}, "Page filenames collide across filesystems: 'a' and 'A'."},
	}
	for _, c := range cases {
		idx, err := evRender(c.texts, c.proposed)
		if err == nil || err.Error() != c.err || idx != nil {
			t.Errorf("RenderIndex err = %v, want %q", err, c.err)
		}
	}
	// A proposed page replaces the invalid file of the same name.
	idx, err := evRender(evTexts("a.md", "broken"), []indexPage{{Name: "a.md", Page: mustParse(t, good)}})
	if err != nil || len(idx.Pages) != 1 {
		t.Fatalf("substitution: %v", err)
	}
}

func mustParse(t *testing.T, text string) *ParsedPage {
	t.Helper()
	p, err := validatePage(text, true)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseIndexRows(t *testing.T) {
	text := indexHeader + "\n- [[a]]:   one  \n- [[e\u0301]]:two\r\n-  [[x]]: no\n- [[]]: no\n- [[b]]: c ]] d\u2028- [[z]]: sep\n"
	got := ParseIndexRows(text)
	want := []indexRow{{"a", "one"}, {"e\u0301", "two"}, {"b", "c ]] d"}, {"z", "sep"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows %q", got)
	}
}

// panicSource is a pageSource whose reader panics on one page.
type panicSource struct {
	evSource
	bad string
}

func (s panicSource) ReadPage(name string) ([]byte, error) {
	if name == s.bad {
		panic("read " + name)
	}
	return s.evSource.ReadPage(name)
}

// A panic while reading pages in parallel (index render, check, health) is
// re-raised on the calling goroutine, where the MCP server recovers it,
// rather than crashing the process from a worker goroutine.
func TestIndexWorkerPanicReachesCaller(t *testing.T) {
	// Several workers even on a one-CPU machine (scheduling only).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var pairs []string
	for i := 0; i < 500; i++ {
		pairs = append(pairs, fmt.Sprintf("p%03d.md", i), evSummaryPage("s", "active"))
	}
	src := panicSource{evSource(evTexts(pairs...)), "p321.md"}
	names, _ := src.PageNames()
	for name, run := range map[string]func(){
		"readPages":    func() { readPages(src, names) },
		"loadAndParse": func() { loadAndParse(src, names, nil, true) },
		"parallel":     func() { Parallel(len(names), func(i int) { src.ReadPage(names[i]) }) },
	} {
		got := func() (p any) {
			defer func() { p = recover() }()
			run()
			return nil
		}()
		if got != "read p321.md" {
			t.Errorf("%s: recovered %v, want the worker's panic", name, got)
		}
	}
}
