package importer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/find"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/gitvault/setup"
)

// newWorkspace initializes a vault in a fresh directory outside Git.
func newWorkspace(t *testing.T) (string, *gitvault.Engine) {
	t.Helper()
	dir := t.TempDir()
	eng, err := gitvault.Open(gitvault.Options{Workspace: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Install(eng, "init"); err != nil {
		t.Fatal(err)
	}
	return eng.WS.Root, eng
}

// snapshot records every file, directory and symlink below dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "symlink:" + l
		case d.IsDir():
			out[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameSnapshot(t *testing.T, before, after map[string]string) {
	t.Helper()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed", k)
		}
	}
	for k := range after {
		if _, ok := before[k]; !ok {
			t.Errorf("%s appeared", k)
		}
	}
}

func write(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func doImport(t *testing.T, opt Options) (*Plan, error) {
	t.Helper()
	p, err := PlanImport(opt)
	if err != nil {
		return nil, err
	}
	if _, err := Apply(p, opt); err != nil {
		return nil, err
	}
	return p, nil
}

func readPage(t *testing.T, ws, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, "EchoesVault", "pages", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseJSONL(t *testing.T) {
	cases := []struct {
		name, in string
		entities int
		rels     int
		wantErr  string // a problem message fragment
		line     int
	}{
		{"valid", `{"type":"entity","name":"A","entityType":"t","observations":["x"]}` + "\n" +
			`{"type":"relation","from":"A","to":"A","relationType":"self"}` + "\n", 1, 1, "", 0},
		{"blank lines and CRLF", "\r\n" + `{"type":"entity","name":"A","entityType":"t","observations":[]}` + "\r\n\r\n", 1, 0, "", 0},
		{"truncated", `{"type":"entity","name":"A","entityType":"t","observations":["x"]}` + "\n" + `{"type":"entity","name":"B","entit`, 0, 0, "truncated or malformed", 2},
		{"unknown type", `{"type":"person","name":"A"}`, 0, 0, `unknown record type "person"`, 1},
		{"no type", `{"name":"A","entityType":"t"}`, 0, 0, `no "type"`, 1},
		{"missing name", `{"type":"entity","entityType":"t"}`, 0, 0, `no "name"`, 1},
		{"mistyped observations", `{"type":"entity","name":"A","entityType":"t","observations":"x"}`, 0, 0, "malformed", 1},
		{"bad relation", `{"type":"relation","from":"A","relationType":"r"}`, 0, 0, "relation needs", 1},
		{"two values", `{"type":"entity","name":"A","entityType":"t"} {}`, 0, 0, "more than one JSON value", 1},
		{"not utf8", "{\"type\":\"entity\",\"name\":\"\xff\",\"entityType\":\"t\"}", 0, 0, "UTF-8", 1},
		{"array", `[1,2]`, 0, 0, "malformed", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := ParseJSONL("memory.jsonl", []byte(c.in))
			if c.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(g.Entities) != c.entities || len(g.Relations) != c.rels {
					t.Fatalf("got %d entities, %d relations", len(g.Entities), len(g.Relations))
				}
				return
			}
			var ie *Error
			if !errors.As(err, &ie) || len(ie.Problems) == 0 {
				t.Fatalf("want a refusal, got %v", err)
			}
			pr := ie.Problems[len(ie.Problems)-1]
			if !strings.Contains(pr.Message, c.wantErr) || pr.Line != c.line || pr.File != "memory.jsonl" {
				t.Fatalf("problem %+v, want %q on line %d", pr, c.wantErr, c.line)
			}
		})
	}
}

func TestParseJSONLMergesDuplicates(t *testing.T) {
	in := `{"type":"entity","name":"A","entityType":"t","observations":["x"]}
{"type":"entity","name":"A","entityType":"t","observations":["x","y"]}
{"type":"relation","from":"A","to":"A","relationType":"r"}
{"type":"relation","from":"A","to":"A","relationType":"r"}
`
	g, err := ParseJSONL("m.jsonl", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Entities) != 1 || strings.Join(g.Entities[0].Observations, ",") != "x,y" || len(g.Relations) != 1 || len(g.Notes) != 2 {
		t.Fatalf("%+v", g)
	}
}

const graph = `{"type":"entity","name":"John Smith","entityType":"person","observations":["Speaks fluent Spanish","Likes tea"]}
{"type":"entity","name":"john smith","entityType":"person","observations":["The other one"]}
{"type":"entity","name":"Acme: Corp","entityType":"organization","observations":["Makes anvils"]}
{"type":"entity","name":"Zoë","entityType":"person","observations":[]}
{"type":"relation","from":"John Smith","to":"Acme: Corp","relationType":"works_at"}
{"type":"relation","from":"Zoë","to":"Nobody","relationType":"knows"}
`

func TestMCPImportPagesIdempotentAndGuarded(t *testing.T) {
	ws, eng := newWorkspace(t)
	src := filepath.Join(t.TempDir(), "memory.jsonl")
	write(t, src, graph)
	opt := Options{Source: src, Engine: eng}
	p, err := doImport(t, opt)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != KindMCPMemory || len(p.Pages) != 4 {
		t.Fatalf("kind %s, %d pages", p.Kind, len(p.Pages))
	}
	// Collisions after case folding are numbered in source-key order.
	john := readPage(t, ws, "John Smith.md")
	other := readPage(t, ws, "john smith 2.md")
	if !strings.Contains(other, "The other one") || !strings.Contains(john, "Speaks fluent Spanish") {
		t.Fatalf("collision resolution:\n%s\n%s", john, other)
	}
	// entityType -> type; the relation named in both pages.
	if !strings.Contains(john, `type: "person"`) || !strings.Contains(john, "- works_at [[Acme- Corp|Acme: Corp]]") {
		t.Fatalf("john:\n%s", john)
	}
	if acme := readPage(t, ws, "Acme- Corp.md"); !strings.Contains(acme, "- [[John Smith]] works_at") {
		t.Fatalf("acme:\n%s", acme)
	}
	// A relation to an entity not in the graph is kept as text and reported.
	if zoe := readPage(t, ws, "Zoë.md"); !strings.Contains(zoe, "knows Nobody (not in the graph)") || len(p.BrokenLinks) != 1 {
		t.Fatalf("zoe:\n%s\n%+v", zoe, p.BrokenLinks)
	}
	if len(p.Renamed) != 2 {
		t.Fatalf("renamed %+v", p.Renamed)
	}

	// Re-running writes the same bytes.
	before := snapshot(t, ws)
	p2, err := doImport(t, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, pw := range p2.Pages {
		if pw.Action != "unchanged" {
			t.Errorf("%s: %s", pw.Name, pw.Action)
		}
	}
	after := snapshot(t, ws)
	delete(before, filepath.Join(".echoes-vault", "state.json")) // local state: lastWriter refreshed
	delete(after, filepath.Join(".echoes-vault", "state.json"))
	sameSnapshot(t, before, after)

	// A changed source updates a page still as the import wrote it.
	write(t, src, strings.Replace(graph, "Likes tea", "Likes coffee", 1))
	p3, err := doImport(t, opt)
	if err != nil {
		t.Fatal(err)
	}
	if got := readPage(t, ws, "John Smith.md"); !strings.Contains(got, "Likes coffee") {
		t.Fatalf("not updated:\n%s", got)
	}
	for _, pw := range p3.Pages {
		if (pw.Name == "John Smith.md") != (pw.Action == "updated") {
			t.Errorf("%s: %s", pw.Name, pw.Action)
		}
	}

	// A page edited since the import is not overwritten without --force,
	// and the refused import changes nothing.
	edited := strings.Replace(readPage(t, ws, "John Smith.md"), "Likes coffee", "Likes coffee (verified)", 1)
	write(t, filepath.Join(ws, "EchoesVault", "pages", "John Smith.md"), edited)
	write(t, src, strings.Replace(graph, "Likes tea", "Likes cocoa", 1))
	before = snapshot(t, ws)
	_, err = doImport(t, opt)
	var ie *Error
	if !errors.As(err, &ie) || !strings.Contains(ie.Problems[0].Message, "changed since the last import") {
		t.Fatalf("want a conflict, got %v", err)
	}
	sameSnapshot(t, before, snapshot(t, ws))
	opt.Force = true
	if _, err := doImport(t, opt); err != nil {
		t.Fatal(err)
	}
	if got := readPage(t, ws, "John Smith.md"); !strings.Contains(got, "Likes cocoa") {
		t.Fatalf("--force did not replace:\n%s", got)
	}
}

func TestImportNeverOverwritesForeignPage(t *testing.T) {
	ws, eng := newWorkspace(t)
	mine := "---\ntype: person\nstack: []\nstatus: active\nsummary: Written by hand.\n---\n\n# Zoë\n"
	write(t, filepath.Join(ws, "EchoesVault", "pages", "Zoë.md"), mine)
	src := filepath.Join(t.TempDir(), "memory.jsonl")
	write(t, src, graph)
	before := snapshot(t, ws)
	_, err := doImport(t, Options{Source: src, Engine: eng})
	var ie *Error
	if !errors.As(err, &ie) || !strings.Contains(ie.Problems[0].Message, "not written by this import") {
		t.Fatalf("got %v", err)
	}
	sameSnapshot(t, before, snapshot(t, ws))
}

// TestRefusedImportsWriteNothing: every refusal leaves the workspace
// byte-identical.
func TestRefusedImportsWriteNothing(t *testing.T) {
	big := filepath.Join(t.TempDir(), "memory.jsonl")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"entity","name":"A","entityType":"t","observations":[]}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(100 << 20); err != nil { // 100 MB, generated here, sparse
		t.Fatal(err)
	}
	f.Close()
	cases := []struct {
		name, jsonl, want string
	}{
		{"device name", `{"type":"entity","name":"CON","entityType":"t","observations":["x"]}` + "\n" +
			`{"type":"entity","name":"ok","entityType":"t","observations":["x"]}`, "reserved device name CON"},
		{"device name with extension", `{"type":"entity","name":"lpt1.txt","entityType":"t","observations":["x"]}`, "reserved device name LPT1"},
		{"secret", `{"type":"entity","name":"ok","entityType":"t","observations":["x"]}` + "\n" +
			`{"type":"entity","name":"keys","entityType":"t","observations":["AKIAIOSFODNN7EXAMPLQ"]}`, "suspected credential"},
		{"truncated", `{"type":"entity","name":"ok","entityType":"t","observations":["x"]}` + "\n" + `{"type":"ent`, "truncated"},
		{"unknown record", `{"type":"entity","name":"ok","entityType":"t","observations":["x"]}` + "\n" + `{"type":"edge"}`, "unknown record type"},
		{"too large", "", "too large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws, eng := newWorkspace(t)
			src := big
			if c.jsonl != "" {
				src = filepath.Join(t.TempDir(), "memory.jsonl")
				write(t, src, c.jsonl)
			}
			before := snapshot(t, ws)
			_, err := doImport(t, Options{Source: src, Engine: eng})
			if err == nil || !strings.Contains(errText(err), c.want) {
				t.Fatalf("got %v, want %q", errText(err), c.want)
			}
			if c.name == "secret" && strings.Contains(errText(err), "AKIA") {
				t.Fatal("the secret's value is shown")
			}
			sameSnapshot(t, before, snapshot(t, ws))
		})
	}
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	var ie *Error
	if errors.As(err, &ie) {
		s := ie.Msg
		for _, p := range ie.Problems {
			s += " | " + p.File + ":" + itoa(p.Line) + ": " + p.Message
		}
		return s
	}
	return err.Error()
}

func itoa(n int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(n)) }

func fmtInt(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// obsidianVault writes a vault in Obsidian's documented layout: notes in
// nested folders, a .obsidian/ settings folder, an attachment, duplicate
// file names, non-ASCII names, a broken link, and symlinks.
func obsidianVault(t *testing.T) string {
	dir := t.TempDir()
	write(t, filepath.Join(dir, ".obsidian", "app.json"), `{"attachmentFolderPath":"attachments"}`)
	write(t, filepath.Join(dir, "Projects", "Alpha.md"), `---
tags: [backend, "#auth"]
created: 2026-01-02
aliases:
- The Alpha
date created: 2026-01-02
---
Alpha is the **login service**. See [[Café]] and [[Beta|the beta]] and [[Missing note]].

![[diagram.png]]
`)
	write(t, filepath.Join(dir, "Projects", "Beta.md"), "# Beta\n\nBeta links back to [[Alpha#Design]].\n")
	write(t, filepath.Join(dir, "Archive", "Beta.md"), "# Old beta\n\nThe archived one.\n")
	write(t, filepath.Join(dir, "Café.md"), "Notes about the café near the office.\n\n```\n[[not a link]]\n```\n")
	write(t, filepath.Join(dir, "attachments", "diagram.png"), "\x89PNG\r\n\x1a\nfake image bytes")
	outside := filepath.Join(t.TempDir(), "secret-notes.md")
	write(t, outside, "# Outside\n\nMust never be read.\n")
	if runtime.GOOS != "windows" {
		if err := os.Symlink(outside, filepath.Join(dir, "Linked.md")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Dir(outside), filepath.Join(dir, "LinkedDir")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, filepath.Join(dir, "attachments", "linked.png")); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, "Embeds.md"), "# Embeds\n\n![[linked.png]]\n")
	}
	return dir
}

func TestObsidianImport(t *testing.T) {
	ws, eng := newWorkspace(t)
	src := obsidianVault(t)
	if k, err := Detect(src); err != nil || k != KindObsidian {
		t.Fatalf("detect: %v %v", k, err)
	}
	p, err := doImport(t, Options{Source: src, Engine: eng})
	if err != nil {
		t.Fatal(errText(err))
	}
	names := map[string]bool{}
	for _, pw := range p.Pages {
		names[pw.Name] = true
	}
	// Archive/Beta.md sorts before Projects/Beta.md: it keeps the name.
	for _, n := range []string{"Alpha.md", "Beta.md", "Beta 2.md", "Café.md"} {
		if !names[n] {
			t.Fatalf("no page %s in %v", n, names)
		}
	}
	if names["Linked.md"] || names["Outside.md"] {
		t.Fatal("a symlinked note was followed")
	}
	alpha := readPage(t, ws, "Alpha.md")
	for _, want := range []string{
		`stack: ["backend", "auth"]`,
		"tags: [backend, \"#auth\"]", // kept as written
		"created: 2026-01-02",
		"aliases:\n  - The Alpha",
		"---\n\n# Alpha\n\nAlpha is", // no heading in the note: its title line is added
	} {
		if !strings.Contains(alpha, want) {
			t.Errorf("Alpha lacks %q:\n%s", want, alpha)
		}
	}
	if strings.Contains(alpha, "date created") {
		t.Error("an invalid frontmatter key was copied")
	}
	// Links rewritten to the imported names; the shown text kept.
	if !strings.Contains(alpha, "[[Café]]") || !strings.Contains(alpha, "[[Beta 2|the beta]]") {
		t.Errorf("links:\n%s", alpha)
	}
	if !strings.Contains(alpha, "[[Missing note]]") {
		t.Error("a broken link was not kept as written")
	}
	if !strings.Contains(alpha, "![[diagram.png]]") {
		t.Errorf("embed:\n%s", alpha)
	}
	if !strings.Contains(alpha, "summary: \"Alpha is the **login service**. See [[Café]] and [[Beta 2|the beta]] and [[Missing note]].\"") {
		t.Errorf("summary:\n%s", alpha)
	}
	got, err := os.ReadFile(filepath.Join(ws, "EchoesVault", "assets", "diagram.png"))
	if err != nil || string(got) != "\x89PNG\r\n\x1a\nfake image bytes" {
		t.Fatalf("asset: %q %v", got, err)
	}
	cafe := readPage(t, ws, "Café.md")
	if !strings.Contains(cafe, "[[not a link]]") {
		t.Error("a link inside code was rewritten")
	}
	broken := false
	for _, b := range p.BrokenLinks {
		if b.Target == "Missing note" && b.File == "Projects/Alpha.md" && b.Line == 1 {
			broken = true
		}
	}
	if !broken {
		t.Errorf("broken links %+v", p.BrokenLinks)
	}
	if runtime.GOOS != "windows" {
		skipped := map[string]bool{}
		for _, s := range p.Skipped {
			skipped[s.File] = strings.Contains(s.Message, "symbolic link")
		}
		if _, err := os.Lstat(filepath.Join(ws, "EchoesVault", "assets", "linked.png")); err == nil {
			t.Error("a symlinked attachment was copied")
		}
		if !strings.Contains(readPage(t, ws, "Embeds.md"), "![[linked.png]]") {
			t.Error("the embed of a symlinked attachment was not kept as written")
		}
		if !skipped["Linked.md"] || !skipped["LinkedDir"] || !skipped["attachments/linked.png"] {
			t.Errorf("skipped %+v", p.Skipped)
		}
	}
	// Idempotent, attachment included.
	before := snapshot(t, ws)
	if _, err := doImport(t, Options{Source: src, Engine: eng}); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, ws)
	delete(before, filepath.Join(".echoes-vault", "state.json"))
	delete(after, filepath.Join(".echoes-vault", "state.json"))
	sameSnapshot(t, before, after)
}

const basicNote = `---
title: Coffee Brewing Methods
type: note
permalink: coffee/coffee-brewing-methods
tags:
- coffee
- brewing
---

# Coffee Brewing Methods

## Observations
- [method] Pour over provides more clarity in flavor than French press #brewing (compared side by side)
- [tip] Water at 94°C #temperature

## Relations
- relates_to [[Coffee Bean Origins]]
- requires [[Proper Grinding Technique]]
`

func TestBasicMemoryImport(t *testing.T) {
	ws, eng := newWorkspace(t)
	src := t.TempDir()
	write(t, filepath.Join(src, "coffee", "brewing.md"), basicNote)
	write(t, filepath.Join(src, "coffee", "origins.md"), "---\ntitle: Coffee Bean Origins\ntype: note\npermalink: coffee/coffee-bean-origins\n---\n\n# Coffee Bean Origins\n\n- [region] Ethiopia is the birthplace of coffee\n")
	write(t, filepath.Join(src, "日本語", "メモ.md"), "---\ntitle: 日本語のメモ\npermalink: nihongo/memo\n---\n\nリンク [[Coffee Brewing Methods]]\n")
	write(t, filepath.Join(src, "archive", "brewing-old.md"), "---\ntitle: Coffee Brewing Methods\npermalink: archive/coffee-brewing-methods\n---\n\n- [method] Cold brew takes twelve hours\n")
	if k, err := Detect(src); err != nil || k != KindBasicMemory {
		t.Fatalf("detect: %v %v", k, err)
	}
	p, err := doImport(t, Options{Source: src, Engine: eng})
	if err != nil {
		t.Fatal(errText(err))
	}
	// Duplicate titles: archive/ sorts first and keeps the name.
	page := readPage(t, ws, "Coffee Brewing Methods 2.md")
	for _, want := range []string{
		`type: "note"`, `stack: ["coffee", "brewing"]`,
		`summary: "Pour over provides more clarity in flavor than French press #brewing (compared side by side)"`,
		"permalink: coffee/coffee-brewing-methods",
		"- [method] Pour over provides more clarity in flavor than French press #brewing (compared side by side)",
		"- [tip] Water at 94°C #temperature",
		"- relates_to [[Coffee Bean Origins]]",
		"- requires [[Proper Grinding Technique]]",
		`imported_from: "basic-memory:coffee/brewing.md"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("lacks %q:\n%s", want, page)
		}
	}
	if memo := readPage(t, ws, "日本語のメモ.md"); !strings.Contains(memo, "リンク [[Coffee Brewing Methods]]") {
		t.Errorf("non-ASCII note:\n%s", memo)
	}
	if len(p.BrokenLinks) != 1 || p.BrokenLinks[0].Target != "Proper Grinding Technique" {
		t.Errorf("broken %+v", p.BrokenLinks)
	}
	if old := readPage(t, ws, "Coffee Brewing Methods.md"); !strings.Contains(old, "archive/brewing-old.md") {
		t.Errorf("duplicate title numbering:\n%s", old)
	}
	// Round trip: every observation and relation line is found by find.
	for _, q := range []string{`"Pour over provides more clarity"`, `"Water at 94°C"`, "relates_to", "requires", `"Ethiopia is the birthplace"`, `"Cold brew takes twelve hours"`} {
		res, err := find.Find(eng.WS, find.Options{Query: q, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 {
			t.Errorf("find %s: no hit", q)
		}
	}
}

func TestNoteSecretsRefused(t *testing.T) {
	ws, eng := newWorkspace(t)
	src := t.TempDir()
	write(t, filepath.Join(src, ".obsidian", "app.json"), "{}")
	write(t, filepath.Join(src, "ok.md"), "fine\n\n![[key.txt]]\n")
	write(t, filepath.Join(src, "key.txt"), "line one\n-----BEGIN RSA PRIVATE KEY-----\n")
	write(t, filepath.Join(src, "sub", "creds.md"), "# Creds\n\nnothing\naws AKIAIOSFODNN7EXAMPLQ here\n")
	before := snapshot(t, ws)
	_, err := doImport(t, Options{Source: src, Engine: eng})
	got := errText(err)
	if !strings.Contains(got, "sub/creds.md:4: suspected credential") || strings.Contains(got, "AKIA") {
		t.Fatalf("got %s", got)
	}
	sameSnapshot(t, before, snapshot(t, ws))
	if err := os.Remove(filepath.Join(src, "sub", "creds.md")); err != nil {
		t.Fatal(err)
	}
	_, err = doImport(t, Options{Source: src, Engine: eng})
	if got := errText(err); !strings.Contains(got, "key.txt:2: suspected credential") || strings.Contains(got, "BEGIN RSA") {
		t.Fatalf("attachment: %s", got)
	}
	sameSnapshot(t, before, snapshot(t, ws))
}

// TestConcurrentEditRefused: a page edited between planning and writing
// is not overwritten: its hash is checked again under the lock.
func TestConcurrentEditRefused(t *testing.T) {
	ws, eng := newWorkspace(t)
	src := filepath.Join(t.TempDir(), "memory.jsonl")
	write(t, src, graph)
	if _, err := doImport(t, Options{Source: src, Engine: eng}); err != nil {
		t.Fatal(err)
	}
	write(t, src, strings.Replace(graph, "Likes tea", "Likes water", 1))
	opt := Options{Source: src, Engine: eng}
	p, err := PlanImport(opt)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(ws, "EchoesVault", "pages", "John Smith.md")
	write(t, page, readPage(t, ws, "John Smith.md")+"\nEdited meanwhile.\n")
	before := snapshot(t, ws)
	if _, err := Apply(p, opt); err == nil || !strings.Contains(err.Error(), "Concurrent change detected") {
		t.Fatalf("got %v", err)
	}
	sameSnapshot(t, before, snapshot(t, ws))
}

func TestAgentsMDSection(t *testing.T) {
	ws, eng := newWorkspace(t)
	start, end := gitvault.ManagedBlockMarkers()
	src := filepath.Join(t.TempDir(), "CLAUDE.md")
	write(t, src, "# Project\n\nIntro.\n\n## Memory\n\n- The API uses cursor pagination.\n- Deploys go through staging first.\n\n"+
		start+"\n## Managed\n- managed text\n"+end+"\n\n### Sub\n\nStill memory.\n\n## Other\n\nNot imported.\n")
	if k, _ := Detect(src); k != KindAgentsMD {
		t.Fatalf("detect %v", k)
	}
	if _, err := PlanImport(Options{Source: src, Engine: eng}); err == nil || !strings.Contains(err.Error(), "--section") {
		t.Fatalf("no --section: %v", err)
	}
	if _, err := PlanImport(Options{Source: src, Engine: eng, Section: "Managed"}); err == nil || !strings.Contains(err.Error(), "manages") {
		t.Fatalf("managed section: %v", err)
	}
	p, err := doImport(t, Options{Source: src, Engine: eng, Section: "memory"})
	if err != nil {
		t.Fatal(errText(err))
	}
	page := readPage(t, ws, "Memory.md")
	if !strings.Contains(page, "cursor pagination") || !strings.Contains(page, "Still memory.") ||
		strings.Contains(page, "managed text") || strings.Contains(page, "Not imported") || strings.Contains(page, "echoes-vault:") {
		t.Fatalf("page:\n%s", page)
	}
	if len(p.Skipped) != 1 {
		t.Errorf("skipped %+v", p.Skipped)
	}
}

func TestImportIntoMemories(t *testing.T) {
	ws, eng := newWorkspace(t)
	src := filepath.Join(t.TempDir(), "memory.jsonl")
	write(t, src, graph)
	roots, err := memory.ResolveRoots(memory.RootOptions{Cwd: ws, Home: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Source: src, Engine: eng, Into: IntoMemories, Roots: roots, Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p, err := doImport(t, opt)
	if err != nil {
		t.Fatal(errText(err))
	}
	if len(p.Memories) != 4 {
		t.Fatalf("%d memories", len(p.Memories))
	}
	ids := map[string]string{}
	for _, m := range p.Memories {
		ids[m.Source] = m.ID
		b, err := os.ReadFile(m.File)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `trust: "unreviewed"`) || !strings.Contains(string(b), `source_harness: "git-echoes-import"`) {
			t.Fatalf("%s", b)
		}
	}
	john, _ := os.ReadFile(p.Memories[1].File)
	if p.Memories[1].Source == "mcp-memory:John Smith" && !strings.Contains(string(john), ids["mcp-memory:Acme: Corp"]) {
		t.Errorf("links: %s", john)
	}
	res, err := memory.Read(roots, ids["mcp-memory:John Smith"], memory.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Memory.Links) != 1 || res.Memory.Links[0] != ids["mcp-memory:Acme: Corp"] {
		t.Errorf("links %v", res.Memory.Links)
	}
	before := snapshot(t, ws)
	p2, err := doImport(t, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range p2.Memories {
		if m.Action != "unchanged" {
			t.Errorf("%s %s", m.ID, m.Action)
		}
	}
	sameSnapshot(t, before, snapshot(t, ws))
}

func TestSanitizeStem(t *testing.T) {
	for in, want := range map[string]string{
		"John Smith":     "John Smith",
		"a/b\\c":         "a-b-c",
		"..hidden":       "hidden",
		"x..y":           "x.y",
		"tab\there  two": "tab here two",
		"[[x]]|y#z^":     "--x---y-z-",
		"trailing. ":     "trailing",
		"":               "untitled",
		"e\u0301":        "é",
		"bidi\u202eevil": "bidi-evil",
	} {
		if got := sanitizeStem(in); got != want {
			t.Errorf("sanitizeStem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBoundSummary(t *testing.T) {
	long := strings.Repeat("word ", 60)
	s := BoundSummary(long)
	if n := len([]rune(s)); n > 160 || !strings.HasSuffix(s, "…") || strings.Contains(s, "\n") {
		t.Fatalf("%d %q", n, s)
	}
	if BoundSummary("a\n b\tc") != "a b c" {
		t.Fatal("whitespace not folded")
	}
}

func TestDetectAmbiguous(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "note.md"), "plain\n")
	if _, err := Detect(dir); err == nil || !strings.Contains(err.Error(), "--from") {
		t.Fatalf("plain folder: %v", err)
	}
	write(t, filepath.Join(dir, ".obsidian", "app.json"), "{}")
	write(t, filepath.Join(dir, ".basic-memory", "x"), "")
	if _, err := Detect(dir); err == nil || !strings.Contains(err.Error(), "both") {
		t.Fatalf("both: %v", err)
	}
	other := filepath.Join(dir, "data.jsonl")
	write(t, other, `{"kind":"x"}`)
	if _, err := Detect(other); err == nil {
		t.Fatal("a foreign jsonl was detected")
	}
}
