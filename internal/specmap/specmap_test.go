package specmap

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// moduleRoot is the repository root, two levels above this package.
const moduleRoot = "../.."

// TestSpecMapIsCurrent regenerates docs/spec-map.md and compares: the map
// holds line numbers, so it goes stale whenever cited code moves.
func TestSpecMapIsCurrent(t *testing.T) {
	// With invalid citations (TestEveryCitationNamesItsDocument lists them)
	// the generator writes nothing, so the map is stale until they are fixed.
	want, _, err := Generate(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(moduleRoot, filepath.FromSlash(MapPath)))
	if err != nil {
		t.Fatalf("%v: run go run ./cmd/specmap", err)
	}
	// A checkout with CRLF line endings holds the same map.
	got = bytes.ReplaceAll(got, []byte("\r\n"), []byte("\n"))
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s is stale: run go run ./cmd/specmap and commit the result.\nfirst difference, line %d:\nhave: %s\nwant: %s", MapPath, i+1, g, w)
		}
	}
}

// TestEveryCitationNamesItsDocument: every "§" in the scanned files is
// preceded by a document name and cites a section that document has.
func TestEveryCitationNamesItsDocument(t *testing.T) {
	cites, probs, err := Scan(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Error(p)
	}
	if len(cites) == 0 {
		t.Fatal("no citations found: is the scan looking at the module root?")
	}
}

func TestScanText(t *testing.T) {
	for _, tc := range []struct {
		line  string
		cites []string // doc §section
		probs []string // message prefixes
	}{
		{"// plain text", nil, nil},
		{"// see protocol §12.9.", []string{"protocol §12.9"}, nil},
		{"// (echoes-conformance §9 step 3)", []string{"echoes-conformance §9"}, nil},
		{"// protocol §12.5.1 then protocol §12.10", []string{"protocol §12.5.1", "protocol §12.10"}, nil},
		{"// (protocol §7.1, protocol §8; echoes-conformance §8.2)", []string{"protocol §7.1", "protocol §8", "echoes-conformance §8.2"}, nil},
		{"// ecc-conformance §17.5/ecc-conformance §17.6", []string{"ecc-conformance §17.5", "ecc-conformance §17.6"}, nil},
		{"# ecc-seed §threat-boundary, ecc-seed-zh §检索完整性与当前状态", []string{"ecc-seed §threat-boundary", "ecc-seed-zh §检索完整性与当前状态"}, nil},
		{"// design §portable-runtime.", []string{"design §portable-runtime"}, nil},
		// A list must repeat the name.
		{"// protocol §7.1, §8", []string{"protocol §7.1"}, []string{"§ without a document name"}},
		{"// §12 hash", nil, []string{"§ without a document name"}},
		{"// CONFORMANCE-echoes §12", nil, []string{"§ without a document name"}},
		{"// Protocol §12.9", nil, []string{"§ without a document name"}},
		// Exactly one space, and a whole word.
		{"// protocol  §5", nil, []string{"§ without a document name"}},
		{"// protocol§5", nil, []string{"§ without a document name"}},
		{"// myprotocol §5", nil, []string{"§ without a document name"}},
		{"// x-design §writes", nil, []string{"§ without a document name"}},
		// The section must exist in that document.
		{"// protocol §22", nil, []string{"protocol §22: no such section"}},
		{"// ecc-conformance §17.7", nil, []string{"ecc-conformance §17.7: no such section"}},
		{"// ecc-seed §12", nil, []string{"ecc-seed §12: no such section"}},
		{"// design §", nil, []string{"design § without a section"}},
		{"// protocol §x", nil, []string{"protocol § without a section"}},
	} {
		cites, probs := ScanText("a/b.go", "package b\n\n"+tc.line+"\n")
		var gotC, gotP []string
		for _, c := range cites {
			if c.Path != "a/b.go" || c.Line != 3 {
				t.Errorf("%q: citation at %s:%d", tc.line, c.Path, c.Line)
			}
			gotC = append(gotC, c.Doc+" §"+c.Section)
		}
		if !reflect.DeepEqual(gotC, tc.cites) {
			t.Errorf("%q: citations %q, want %q", tc.line, gotC, tc.cites)
		}
		for _, p := range probs {
			gotP = append(gotP, p.Msg)
		}
		if len(gotP) != len(tc.probs) {
			t.Errorf("%q: problems %q, want %q", tc.line, gotP, tc.probs)
			continue
		}
		for i, p := range probs {
			if !strings.HasPrefix(p.Msg, tc.probs[i]) || p.Line != 3 {
				t.Errorf("%q: problem %v, want %q at line 3", tc.line, p, tc.probs[i])
			}
		}
	}
}

func TestScanTextCRLF(t *testing.T) {
	cites, probs := ScanText("x.txtar", "# protocol §5\r\n# echoes-conformance §12\r\n")
	want := []Citation{{"protocol", "5", "x.txtar", 1}, {"echoes-conformance", "12", "x.txtar", 2}}
	if len(probs) > 0 || !reflect.DeepEqual(cites, want) {
		t.Fatalf("got %v %v", cites, probs)
	}
}

// TestScanFiles: which files are read, on a real tree.
func TestScanFiles(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"a.go":                        "// protocol §5\n",
		"pkg/b_test.go":               "// bare §5\n",
		"pkg/testdata/script/x.txtar": "# echoes-conformance §3\n",
		"docs/guide.md":               "See ecc-conformance §9.1.\n",
		"docs/sub/deep.md":            "See design §writes.\n",
		MapPath:                       "the map itself: §5\n",
		"README.md":                   "README: §12\n",
		"notes.md":                    "not under docs: §12\n",
		"pkg/c.py":                    "# §12\n",
		".git/x.go":                   "// §1\n",
		".hidden/y.go":                "// §1\n",
		selfDir + "/grammar.go":       "// §1\n",
	}
	for p, text := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cites, probs, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cites {
		got = append(got, c.Path+":"+strconv.Itoa(c.Line)+" "+c.Doc+" §"+c.Section)
	}
	want := []string{
		"a.go:1 protocol §5",
		"docs/guide.md:1 ecc-conformance §9.1",
		"docs/sub/deep.md:1 design §writes",
		"pkg/testdata/script/x.txtar:1 echoes-conformance §3",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("citations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(probs) != 1 || probs[0].Path != "pkg/b_test.go" || probs[0].Line != 1 {
		t.Errorf("problems %v, want one at pkg/b_test.go:1", probs)
	}
}

// TestRenderOrder: documents in table order, sections in numeric order,
// citations by path then line number, duplicates once.
func TestRenderOrder(t *testing.T) {
	cites := []Citation{
		{"protocol", "12.10", "z.go", 1},
		{"protocol", "12.9", "b.go", 10},
		{"protocol", "12.9", "b.go", 9},
		{"protocol", "12.9", "a.go", 100},
		{"protocol", "12.9", "b.go", 9},
		{"protocol", "12.5.1", "c.go", 3},
		{"protocol", "2", "c.go", 4},
		{"ecc-conformance", "17.5", "m.go", 2},
		{"echoes-conformance", "12", "e.go", 5},
	}
	text := string(Render(cites))
	row := func(s string) int {
		i := strings.Index(text, "\n| "+s+" |")
		if i < 0 {
			t.Fatalf("no row %q in\n%s", s, text)
		}
		return i
	}
	if !(row("2") < row("12.5") && row("12.5") < row("12.5.1") && row("12.5.1") < row("12.6") &&
		row("12.9") < row("12.10")) {
		t.Error("protocol sections out of numeric order")
	}
	if want := "| 12.9 | `hash` | [a.go:100](../a.go#L100), [b.go:9](../b.go#L9), [b.go:10](../b.go#L10) |\n"; !strings.Contains(text, want) {
		t.Errorf("want row %q in\n%s", want, text)
	}
	if !strings.Contains(text, "| 12.11 | `end` |  |\n") {
		t.Error("an uncited section must still be listed")
	}
	p, e, c := strings.Index(text, "## protocol:"), strings.Index(text, "## echoes-conformance:"), strings.Index(text, "## ecc-conformance:")
	if !(p >= 0 && p < e && e < c) {
		t.Error("documents out of table order")
	}
	if !strings.Contains(text, "8 citations in 6 files.") {
		t.Error("totals must count each citation once")
	}
	if !strings.Contains(text, "| `protocol` | EchoesVault Protocol 1.0.0 | seed `000_*.txt` | 6 |") {
		t.Error("per-document count")
	}
}

// TestSectionTables: unique ids, numbered documents in numeric order with
// every parent present, anchors in the citation grammar.
func TestSectionTables(t *testing.T) {
	names := map[string]bool{}
	for _, d := range Docs {
		if names[d.Name] {
			t.Errorf("document %s twice", d.Name)
		}
		names[d.Name] = true
		if len(d.Sections) == 0 {
			t.Errorf("%s has no sections", d.Name)
		}
		ids := map[string]bool{}
		for i, s := range d.Sections {
			if ids[s.ID] {
				t.Errorf("%s §%s twice", d.Name, s.ID)
			}
			ids[s.ID] = true
			re := anchorRe
			if d.Numbered {
				re = numberRe
			}
			if re.FindString(s.ID) != s.ID || s.Title == "" {
				t.Errorf("%s §%s: bad id or empty title", d.Name, s.ID)
			}
			if !d.Numbered {
				continue
			}
			if i > 0 && !sectionLess(d.Sections[i-1].ID, s.ID) {
				t.Errorf("%s §%s after §%s", d.Name, s.ID, d.Sections[i-1].ID)
			}
			if j := strings.LastIndex(s.ID, "."); j >= 0 && !ids[s.ID[:j]] {
				t.Errorf("%s §%s without its parent", d.Name, s.ID)
			}
		}
	}
}

// sectionLess orders dotted section numbers numerically ("2" < "10",
// "12.5" < "12.5.1" < "12.6").
func sectionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}
