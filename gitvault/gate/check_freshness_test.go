package gate

import (
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/gitvault/freshness"
)

func TestSplitRange(t *testing.T) {
	for _, tc := range []struct {
		in, a, b string
		isRange  bool
		bad      bool
	}{
		{in: "main", b: "main"},
		{in: "HEAD~1", b: "HEAD~1"},
		{in: "a..b", a: "a", b: "b", isRange: true},
		{in: "a...b", a: "a", b: "b", isRange: true},
		{in: "..b", a: "HEAD", b: "b", isRange: true},
		{in: "a..", a: "a", b: "HEAD", isRange: true},
		{in: "a...", a: "a", b: "HEAD", isRange: true},
		{in: "..", bad: true},
		{in: "...", bad: true},
		{in: "a..b..c", bad: true},
		{in: "a....b", bad: true},
	} {
		a, b, isRange, err := splitRange(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && (a != tc.a || b != tc.b || isRange != tc.isRange)) {
			t.Errorf("splitRange(%q) = %q %q %v %v", tc.in, a, b, isRange, err)
		}
	}
}

func TestSourceFindings(t *testing.T) {
	page := "---\ntype: note\nstack: go\nstatus: active\nsummary: \"s\"\nsources:\n  - ok.go\n  - /abs\n  - ../up\n  - \"\"\n  - 12\n  - {a: b}\n---\n"
	fs := sourceFindings("EchoesVault/pages/p.md", page)
	var got []string
	for _, f := range fs {
		if f.Rule != ruleSourceInvalid || f.Severity() != SeverityWarning {
			t.Fatalf("finding %+v", f)
		}
		got = append(got, f.Message[:strings.Index(f.Message, ")")+1])
		if want := strings.Index(page, strings.TrimSpace(strings.Split(page, "\n")[f.Line-1])); want < 0 {
			t.Fatalf("line %d", f.Line)
		}
	}
	want := []string{
		"sources: entry '/abs' is not a citation (absolute path)",
		"sources: entry '../up' is not a citation (path leaves the repository)",
		`sources: entry '""' is not a citation (empty entry)`,
		"sources: entry '12' is not a citation (not a string)",
		"sources: entry '{a: b}' is not a citation (not a string)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if fs[0].Line != 8 || fs[4].Line != 12 {
		t.Fatalf("lines %d %d", fs[0].Line, fs[4].Line)
	}
	var long strings.Builder
	long.WriteString("---\ntype: note\nsources:\n")
	for i := 0; i <= freshness.MaxSources; i++ {
		long.WriteString("  - a.go\n")
	}
	long.WriteString("---\n")
	fs = sourceFindings("p.md", long.String())
	if len(fs) != 1 || fs[0].Line != 3 || fs[0].Message != "sources: list has more than 64 entries; the page stays valid, but the list is ignored: cite at most 64 places" {
		t.Fatalf("long list: %+v", fs)
	}
}
