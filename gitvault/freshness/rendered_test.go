package freshness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// coldAnswer is what a run with no cache at all prints: the selection's
// documents checked from nothing and rendered.
func coldAnswer(t *testing.T, eng *gitvault.Engine, sel Selection, r Renderer) []byte {
	t.Helper()
	s, err := selectDocs(eng, sel)
	if err != nil {
		t.Fatal(err)
	}
	defer s.tr.Close()
	if err := readTexts(s.tr, s.docs); err != nil {
		t.Fatal(err)
	}
	reps, err := Check(s.repo, s.target, s.docs)
	if err != nil {
		t.Fatal(err)
	}
	return r.Render(s.target, reps)
}

// The rendered-answer cache (and the verdict cache under it) answers
// exactly what a cold run would, after each change of what the answer
// depends on: a new commit, a page edited in the work tree, a cited file
// changed in the work tree, a moved ref, a damaged cache file; and an
// unchanged repeat is answered from the cache without rendering.
func TestRenderedAnswerIsTheColdAnswer(t *testing.T) {
	s := gitrepotest.New(t)
	dir := s.Init(filepath.Join(t.TempDir(), "r"))
	eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(eng, "init"); err != nil {
		t.Fatal(err)
	}
	write := func(p, text string) {
		t.Helper()
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("src/a.go", lines(10, "a"))
	write("src/b.go", lines(10, "b"))
	write(PagesDir+"/a.md", page([]string{"src/a.go:3-4"}, "See `src/b.go`.\n"))
	write(PagesDir+"/b.md", page([]string{"src/b.go"}, "b\n"))
	s.Git(dir, "add", "-A")
	s.Git(dir, "commit", "-qm", "vault")

	renders := 0
	count := func(f func(string, []Report) []byte) func(string, []Report) []byte {
		return func(t string, r []Report) []byte { renders++; return f(t, r) }
	}
	formats := []Renderer{
		{Name: "json", Render: count(PrettyJSON)},
		{Name: "text", Render: count(func(t string, r []Report) []byte { return []byte(Text(t, r)) })},
	}
	// answer checks every format of sel against its cold answer; cached
	// says whether each must come from the cache (no rendering).
	answer := func(step string, sel Selection, cached bool) {
		t.Helper()
		for _, r := range formats {
			before := renders
			var out bytes.Buffer
			stale, werr, err := Rendered(eng, sel, r, &out)
			if err != nil || werr != nil {
				t.Fatalf("%s, %s: %v %v", step, r.Name, err, werr)
			}
			rendered := renders > before
			if want := coldAnswer(t, eng, sel, r); !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s, %s: the answer is not the cold one:\n got %s\nwant %s", step, r.Name, out.Bytes(), want)
			}
			_ = stale // TestRenderedStaleFlag
			if rendered == cached {
				t.Errorf("%s, %s: rendered %v, want from the cache %v", step, r.Name, rendered, cached)
			}
		}
	}
	work, atMain := Selection{}, Selection{Rev: "main"}
	answer("first run", work, false)
	answer("repeat", work, true)
	answer("--rev main, same documents", atMain, true)

	write("src/a.go", strings.Replace(lines(10, "a"), "a line 3\n", "a line 3 changed\n", 1))
	s.Git(dir, "commit", "-qam", "change cited lines")
	answer("a new commit", work, false)
	answer("a new commit, repeat", work, true)

	write(PagesDir+"/b.md", page([]string{"src/b.go", "src/a.go"}, "b edited\n"))
	answer("a page edited in the work tree", work, false)
	answer("a page edited, repeat", work, true)

	write("src/b.go", lines(12, "b"))
	answer("a cited file changed in the work tree", work, true) // checked against HEAD: the answer does not change
	s.Git(dir, "checkout", "-q", "--", "src/b.go")

	s.Git(dir, "branch", "old", "HEAD~1")
	old := Selection{Rev: "old"}
	answer("--rev old", old, false)
	s.Git(dir, "branch", "-f", "old", "HEAD")
	answer("a moved ref", old, false)

	// A damaged file is ignored and replaced.
	cache, err := eng.WS.LocalCacheDir("stale")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(cache, "rendered-text")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data[:len(data)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, _, err := Rendered(eng, old, formats[1], &out); err != nil {
		t.Fatal(err)
	}
	if want := coldAnswer(t, eng, old, formats[1]); !bytes.Equal(out.Bytes(), want) {
		t.Errorf("truncated cache file: got %s\nwant %s", out.Bytes(), want)
	}
}

// A cache that cannot be written costs only the next run's time: the
// answer is the cold one all the same, printed whole, and the write's
// error comes back as the warning (the verdicts' before the answer's,
// whichever finished first); a cache file that could be written is.
// Each write is blocked by a directory where its file goes.
func TestRenderedCacheWriteFails(t *testing.T) {
	s := gitrepotest.New(t)
	dir := s.Init(filepath.Join(t.TempDir(), "r"))
	eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(eng, "init"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, text := range map[string]string{"src/a.go": "a\n", PagesDir + "/a.md": page([]string{"src/a.go"}, "a\n")} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.Git(dir, "add", "-A")
	s.Git(dir, "commit", "-qm", "vault")
	if err := os.WriteFile(filepath.Join(dir, "src", "a.go"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Git(dir, "commit", "-qam", "change")
	cache, err := eng.WS.LocalCacheDir("stale")
	if err != nil {
		t.Fatal(err)
	}
	r := Renderer{Name: "json", Render: PrettyJSON}
	sel := Selection{Rev: "main"}
	want := coldAnswer(t, eng, sel, r)
	for _, tc := range []struct {
		blocked []string // cache files replaced by a directory
		warn    string   // the file the warning names
	}{
		{[]string{"verdicts", "rendered-json"}, "verdicts"},
		{[]string{"verdicts"}, "verdicts"},
		{[]string{"rendered-json"}, "rendered-json"},
	} {
		if err := os.RemoveAll(cache); err != nil {
			t.Fatal(err)
		}
		for _, name := range tc.blocked {
			if err := os.MkdirAll(filepath.Join(cache, name, "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		var out bytes.Buffer
		stale, werr, err := Rendered(eng, sel, r, &out)
		if err != nil {
			t.Fatalf("%v: %v", tc.blocked, err)
		}
		if !stale || !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%v: stale %v, answer\n%s\nwant the cold one\n%s", tc.blocked, stale, out.Bytes(), want)
		}
		if werr == nil || !strings.Contains(werr.Error(), filepath.Join(cache, tc.warn)) {
			t.Errorf("%v: warning %v, want one naming %s", tc.blocked, werr, tc.warn)
		}
		for _, name := range []string{"verdicts", "rendered-json"} {
			st, err := os.Stat(filepath.Join(cache, name))
			if err != nil {
				t.Fatal(err)
			}
			if blocked := st.IsDir(); blocked != slices.Contains(tc.blocked, name) {
				t.Errorf("%v: %s: a directory %v", tc.blocked, name, blocked)
			}
		}
		entries, err := os.ReadDir(cache)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 2 {
			t.Errorf("%v: the cache holds %d entries, want 2 (no temporary file left)", tc.blocked, len(entries))
		}
	}
}

// --strict's flag comes with the cached answer: drifted is reported from
// the cache as it was when the answer was rendered.
func TestRenderedStaleFlag(t *testing.T) {
	s := gitrepotest.New(t)
	dir := s.Init(filepath.Join(t.TempDir(), "r"))
	eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(eng, "init"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, text := range map[string]string{"src/a.go": "a\n", PagesDir + "/a.md": page([]string{"src/a.go"}, "a\n")} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.Git(dir, "add", "-A")
	s.Git(dir, "commit", "-qm", "vault")
	r := Renderer{Name: "text", Render: func(t string, r []Report) []byte { return []byte(Text(t, r)) }}
	for i := 0; i < 2; i++ {
		if stale, _, err := Rendered(eng, Selection{}, r, &bytes.Buffer{}); err != nil || stale {
			t.Fatalf("fresh, run %d: stale %v, %v", i, stale, err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "a.go"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Git(dir, "commit", "-qam", "change")
	for i := 0; i < 2; i++ {
		if stale, _, err := Rendered(eng, Selection{}, r, &bytes.Buffer{}); err != nil || !stale {
			t.Fatalf("drifted, run %d: stale %v, %v", i, stale, err)
		}
	}
}

// A work-tree page is keyed by its blob when its text (as the page reader
// decodes it) is the committed blob's bytes (no blob read), is committed
// without a blob key when only the blob's decoding is its text (CRLF
// line ends committed), and is anchored at the work tree when edited.
func TestWorkTreePagesBlobKey(t *testing.T) {
	s := gitrepotest.New(t)
	dir := s.Init(filepath.Join(t.TempDir(), "r"))
	eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(eng, "init"); err != nil {
		t.Fatal(err)
	}
	pg := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(PagesDir), name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	body := page(nil, "x\n")
	crlf := strings.ReplaceAll(body, "\n", "\r\n")
	pg("same.md", body)
	pg("crlf.md", body)
	pg("committed-crlf.md", crlf)
	pg("edited.md", body)
	s.Git(dir, "add", "-A")
	s.Git(dir, "commit", "-qm", "pages")
	pg("crlf.md", crlf)
	pg("committed-crlf.md", body)
	pg("edited.md", body+"more\n")
	sel, err := selectDocs(eng, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	defer sel.tr.Close()
	got := map[string]Doc{}
	for _, d := range sel.docs {
		got[strings.TrimPrefix(d.Path, PagesDir+"/")] = d
	}
	blob := s.Git(dir, "rev-parse", "HEAD:"+PagesDir+"/same.md")
	if d := got["same.md"]; d.WorkTree || strings.TrimSpace(d.Blob) != strings.TrimSpace(blob) {
		t.Errorf("same.md: %+v, want blob %s", d, blob)
	}
	// The text read is the committed blob's bytes: keyed by the blob.
	blob = s.Git(dir, "rev-parse", "HEAD:"+PagesDir+"/crlf.md")
	if d := got["crlf.md"]; d.WorkTree || strings.TrimSpace(d.Blob) != strings.TrimSpace(blob) || d.Text != body {
		t.Errorf("crlf.md: %+v", d)
	}
	// The blob's bytes are not the text (CRLF) but decode to it: the
	// page has no uncommitted change, and is keyed by its text.
	if d := got["committed-crlf.md"]; d.WorkTree || d.Blob != "" || d.Text != body {
		t.Errorf("committed-crlf.md: %+v", d)
	}
	if d := got["edited.md"]; !d.WorkTree || d.Blob != "" {
		t.Errorf("edited.md: %+v", d)
	}
}

// renderPin is the sha256 of the renderers' output for pinReports, at
// renderVersion: a change to what they print changes it, and must come
// with a new renderVersion (so that no answer an older build cached is
// printed by a newer one) and a new pin.
const renderPin = "73cf2b643ba37efeafd33854812948ce0930872f50c21f6845105ba0eb19b343"

func TestRenderVersionPinned(t *testing.T) {
	day := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	reps := []Report{
		{Path: PagesDir + "/a.md", Verdict: Drifted, Anchor: Anchor{Commit: strings.Repeat("a", 40), Date: day},
			Citations: []Result{{Citation: Citation{Path: "src/a.go", Start: 3, End: 4}, Verdict: Drifted, Count: 1,
				Commits: []CommitRef{{Hash: strings.Repeat("b", 40), Short: "bbbbbbb", Subject: "rotate \"keys\"", Author: "Ann", Date: day, Added: 1, Removed: 1}}},
				{Citation: Citation{Path: "src/b.go"}, Verdict: Moved, NewPath: "src/c.go"},
				{Citation: Citation{Path: "src/gone.go"}, Verdict: Missing, Note: "deleted in ccccccc"}},
			Invalid: []Invalid{{Entry: "/abs", Reason: "absolute", Line: 7}}},
		{Path: PagesDir + "/b.md", Verdict: Fresh, Anchor: Anchor{WorkTree: true, Date: day},
			Citations: []Result{{Citation: Citation{Path: "src/b.go"}, Verdict: Fresh}}},
		{Path: ".ecc/memory/m.md", Memory: true, Verdict: Uncited, Anchor: Anchor{Commit: strings.Repeat("d", 40), Date: day, Shallow: true}},
	}
	target := strings.Repeat("e", 40)
	h := sha256.New()
	h.Write(PrettyJSON(target, reps))
	h.Write([]byte(Text(target, reps)))
	h.Write([]byte(Markdown(target, reps)))
	if got := hex.EncodeToString(h.Sum(nil)); got != renderPin {
		t.Errorf("the renderers' output changed (sha256 %s, pinned %s at renderVersion %d): change renderVersion and renderPin", got, renderPin, renderVersion)
	}
}
