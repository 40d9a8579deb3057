package freshness

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseEntry(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   Citation
		reason string
	}{
		{in: "internal/auth/token.go", want: Citation{Path: "internal/auth/token.go"}},
		{in: "  a.go  ", want: Citation{Path: "a.go"}},
		{in: "a.go:12", want: Citation{Path: "a.go", Start: 12, End: 12}},
		{in: "a.go:3-9", want: Citation{Path: "a.go", Start: 3, End: 9}},
		{in: "internal/auth/", want: Citation{Path: "internal/auth"}},
		{in: "odd:name.go", want: Citation{Path: "odd:name.go"}},
		{in: "", reason: "empty entry"},
		{in: "/", reason: "absolute path"},
		{in: "/etc/passwd", reason: "absolute path"},
		{in: `\\server\share`, reason: "absolute path"},
		{in: "C:/x.go", reason: "absolute path"},
		{in: `a\b.go`, reason: "backslash in path (use /)"},
		{in: "../x.go", reason: "path leaves the repository"},
		{in: "a/../../x.go", reason: "path leaves the repository"},
		{in: "./a.go", reason: "not a clean path"},
		{in: "a//b.go", reason: "not a clean path"},
		{in: "a.go:0", reason: "bad line range"},
		{in: "a.go:9-3", reason: "bad line range"},
		{in: "a.go:1-99999999999", reason: "bad line range"},
		{in: "dir/:3", reason: "a directory has no lines"},
		{in: "a\x00.go", reason: "control character in path"},
	} {
		got, reason := ParseEntry(tc.in)
		if reason != tc.reason || (reason == "" && got != tc.want) {
			t.Errorf("ParseEntry(%q) = %+v %q, want %+v %q", tc.in, got, reason, tc.want, tc.reason)
		}
	}
}

func fm(lines ...string) string {
	return "---\ntype: note\nstack: go\nstatus: active\nsummary: s\n" + strings.Join(lines, "\n") + "\n---\nbody\n"
}

func TestSources(t *testing.T) {
	type res struct {
		cites []string
		bad   []string
	}
	run := func(text string) res {
		c, b := Sources(text)
		var r res
		for _, x := range c {
			r.cites = append(r.cites, x.String())
		}
		for _, x := range b {
			r.bad = append(r.bad, fmt.Sprintf("%d:%s:%s", x.Line, x.Entry, x.Reason))
		}
		return r
	}
	for _, tc := range []struct {
		name string
		text string
		want res
	}{
		{"none", fm(), res{}},
		{"block", fm("sources:", "  - a.go", "  # comment", "", "  - \"b.go:1-2\"", "  - 'c/'", "next: x"), res{cites: []string{"a.go", "b.go:1-2", "c"}}},
		{"flow", fm(`sources: [a.go, "b.go:3", 'c d/e']`), res{cites: []string{"a.go", "b.go:3", "c d/e"}}},
		{"empty flow", fm("sources: []"), res{}},
		{"inline", fm("sources: a.go:7"), res{cites: []string{"a.go:7"}}},
		{"duplicates", fm("sources:", "  - a.go", "  - a.go"), res{cites: []string{"a.go"}}},
		{"bad entries", fm("sources:", "  - /abs", "  - ../up", "  - \"\"", "  - 12", "  - true", "  - {path: a}", "  - [a]", "  - key: v", "  -nospace", "  - ok.go"),
			res{cites: []string{"ok.go"}, bad: []string{
				"7:/abs:absolute path", "8:../up:path leaves the repository", `9:"":empty entry`, "10:12:not a string",
				"11:true:not a string", "12:{path: a}:not a string", "13:[a]:not a string", "14:key: v:not a string",
				"15:-nospace:not a list item"}}},
		{"unterminated flow", fm("sources: [a.go"), res{bad: []string{"6:[a.go:unterminated flow list"}}},
		{"bad quote", fm(`sources: ["a.go`), res{bad: []string{`6:["a.go:unterminated flow list`}}},
		{"not a page", "no frontmatter\nsources: a.go\n", res{}},
		{"comment after plain", fm("sources:", "  - a.go # the token code"), res{cites: []string{"a.go"}}},
	} {
		if got := run(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// The bound: 64 entries are citations, 65 are one finding.
	var many []string
	for i := 0; i <= MaxSources; i++ {
		many = append(many, fmt.Sprintf("  - f%d.go", i))
	}
	if got := run(fm(append([]string{"sources:"}, many[:MaxSources]...)...)); len(got.cites) != MaxSources || got.bad != nil {
		t.Errorf("%d entries: %d cites, %v", MaxSources, len(got.cites), got.bad)
	}
	if got := run(fm(append([]string{"sources:"}, many...)...)); got.cites != nil || len(got.bad) != 1 || !strings.Contains(got.bad[0], "more than 64 entries") {
		t.Errorf("%d entries: %+v", MaxSources+1, got)
	}
}

func TestCandidates(t *testing.T) {
	body := strings.Join([]string{
		"Tokens in `internal/auth/token.go` and ``a`b.go`` and `cmd/x.go:3-4`.",
		"Prose naming internal/auth/keys.go is not a citation.",
		"[link](../../docs/x.md#L2-L5) [site](https://example.com/a.go) [rel](sub/y.md) ![img](<assets/p.png> \"t\")",
		"```",
		"`fenced/a.go`",
		"```",
		"",
		"    `indented/a.go`",
		"`../escape.go` `/abs.go` unclosed `x.go",
	}, "\n")
	var got []string
	for _, c := range Candidates(body, "EchoesVault/pages") {
		s := c.Citation.String()
		if c.Alt != "" {
			s += "|" + c.Alt
		}
		got = append(got, s)
	}
	want := []string{"internal/auth/token.go", "a`b.go", "cmd/x.go:3-4", "docs/x.md:2-5",
		"EchoesVault/pages/sub/y.md|sub/y.md", "EchoesVault/pages/assets/p.png|assets/p.png"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Candidates:\n got %q\nwant %q", got, want)
	}
}

func TestBody(t *testing.T) {
	if got := Body(fm()); got != "body" {
		t.Errorf("Body = %q", got)
	}
	if got := Body("plain\n"); got != "plain\n" { // not a page: the text as it is
		t.Errorf("Body without frontmatter = %q", got)
	}
}

// FuzzCitations: the citation readers never panic, and every citation
// they return is one ParseEntry accepts, within the bounds.
func FuzzCitations(f *testing.F) {
	f.Add(fm("sources:", "  - a.go:1-2", "  - [x]"), "`a.go` [l](../b.md#L3)")
	f.Add(fm(`sources: ["a", 'b', c]`), "``` \n`x`\n```")
	f.Add("---\nsources: \"\\ud800\"\n---\n", "`\x00`")
	f.Fuzz(func(t *testing.T, text, body string) {
		cites, bad := Sources(text)
		if len(cites) > MaxSources {
			t.Fatalf("%d citations", len(cites))
		}
		for _, c := range cites {
			if back, reason := ParseEntry(c.String()); reason != "" || back.Path != c.Path || back.Start != c.Start {
				t.Fatalf("citation %+v does not parse back: %q", c, reason)
			}
		}
		_ = bad
		for _, c := range Candidates(body, "EchoesVault/pages") {
			if _, reason := ParseEntry(c.Citation.String()); reason != "" {
				t.Fatalf("candidate %+v: %s", c, reason)
			}
		}
		_, _, _ = Verified(text)
		if out, err := SetVerified(text, strings.Repeat("a", 40), "2026-01-01T00:00:00Z"); err == nil {
			if c, _, ok := Verified(out); !ok || c != strings.Repeat("a", 40) {
				t.Fatalf("SetVerified(%q) = %q does not read back", text, out)
			}
		}
	})
}

// TestSourcesLinesAfterLeadingBlank: the line of a bad entry is the
// file's line, also when blank lines come before the frontmatter (the
// page reader strips them; check's source-invalid finding must not).
func TestSourcesLinesAfterLeadingBlank(t *testing.T) {
	body := "---\ntype: note\nsources:\n  - ../x\n---\n"
	for lead, want := range map[string]int{"": 4, "\n\n": 6, "\r\n": 5, " \n\t\n": 6} {
		_, bad := Sources(lead + body)
		if len(bad) != 1 || bad[0].Line != want {
			t.Errorf("lead %q: %+v, want line %d", lead, bad, want)
		}
	}
	_, bad := Sources("\n---\ntype: note\nsources: [a, b\n---\n")
	if len(bad) != 1 || bad[0].Line != 4 {
		t.Errorf("unterminated flow list: %+v", bad)
	}
}
