package gitvault

import (
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

func evPage(fm string) string { return "---\n" + fm + "---\n" }

const evBase = "type: t\nstack: []\nstatus: active\n"

// TestParsePageAcceptance covers echoes-conformance §9 and the parity items
// of echoes-conformance §24 through validatePage (summary required).
func TestParsePageAcceptance(t *testing.T) {
	long160 := strings.Repeat("é", 160)
	cases := []struct {
		name, content             string
		typ, status, summary, err string
	}{
		{"protocol example", "---\ntype: architecture\nstack: [python]\nstatus: active\nsummary: Authentication boundaries and token flow.\n---\n\n# Authentication architecture\n",
			"architecture", "active", "Authentication boundaries and token flow.", ""},
		{"status casefolded, type kept", evPage("type: ADR\nstack: []\nstatus: DEPRECATED\nsummary: s\n"), "ADR", "deprecated", "s", ""},
		{"type:a without space", evPage("type:a\nstack: []\nstatus: active\nsummary: s\n"), "a", "active", "s", ""},
		{"type : a is not a key", evPage("type : a\nstack: []\nstatus: active\nsummary: s\n"), "", "", "", "YAML frontmatter is missing required keys: type"},
		{"indented required keys do not count", evPage("  type: a\nstack: []\nstatus: active\nsummary: s\n"), "", "", "", "YAML frontmatter is missing required keys: type"},
		{"comment lines", evPage("# type: x\ntype: a\nstack: []\nstatus: active\nsummary: s\n"), "a", "active", "s", ""},
		{"duplicate key", evPage(evBase + "summary: s\nstatus: b\n"), "", "", "", "YAML frontmatter contains duplicate key: status"},
		{"stack list after comments", evPage("type: a\nstack:\n# c\n\n  # c2\n  - go\nstatus: active\nsummary: s\n"), "a", "active", "s", ""},
		{"unindented stack list", evPage("type: a\nstack:\n- go\nstatus: active\nsummary: s\n"), "", "", "", "YAML frontmatter is missing required keys: stack"},
		{"all missing", evPage("other: x\n"), "", "", "", "YAML frontmatter is missing required keys: type, stack, status, summary"},
		{"quoted comment fails", evPage("type: a\nstack: []\nstatus: \"x\" # c\nsummary: s\n"), "", "", "", "Invalid quoted YAML value for status: Extra data: line 1 column 5 (char 4)"},
		{"single-quoted doubling", evPage(evBase + "summary: 'it''s'\n"), "t", "active", "it's", ""},
		{"lone quote is plain", evPage(evBase + "summary: '\n"), "t", "active", "'", ""},
		{"plain keeps comment", evPage("type: a\nstack: []\nstatus: active # c\nsummary: s\n"), "a", "active # c", "s", ""},
		{"empty quoted type and status accepted", evPage("type: \"\"\nstack: []\nstatus: ''\nsummary: s\n"), "", "", "s", ""},
		{"type block value", evPage("type:\n  x\nstack: []\nstatus: active\nsummary: s\n"), "", "", "", "YAML frontmatter key 'type' must have an inline value."},
		{"BOM before ---", "\ufeff" + evPage(evBase+"summary: s\n"), "", "", "", "Every page must begin with YAML frontmatter."},
		{"leading blank lines and indentation stripped", "\n\n \t" + evPage(evBase+"summary: s\n") + "\n\n", "t", "active", "s", ""},
		{"closing '--- ' as the last line", "---\n" + evBase + "summary: s\n--- ", "t", "active", "s", ""},
		{"closing '--- ' before a body", "---\n" + evBase + "summary: s\n--- \nbody\n", "", "", "", "YAML frontmatter is missing its closing '---'."},
		{"empty frontmatter", "---\n---\n", "", "", "", "YAML frontmatter cannot be empty."},
		{"blank content", " \n\t", "", "", "", "Page content must be a non-empty string."},
		{"setext underline is a conflict marker", evPage(evBase+"summary: s\n") + "Title\n=======\n", "", "", "", "Page contains unresolved Git conflict markers."},
		{"eight = is not", evPage(evBase+"summary: s\n") + "Title\n========\n", "t", "active", "s", ""},
		{"ours marker", evPage(evBase+"summary: s\n") + "<<<<<<< HEAD\n", "", "", "", "Page contains unresolved Git conflict markers."},
		{"ours marker without space is text", evPage(evBase+"summary: s\n") + "<<<<<<<HEAD\n", "t", "active", "s", ""},
		{"theirs marker at end", evPage(evBase+"summary: s\n") + ">>>>>>>", "", "", "", "Page contains unresolved Git conflict markers."},
		{"CRLF =======", "---\r\ntype: a\r\nstack: []\r\nstatus: active\r\nsummary: s\r\n---\r\nx\r\n=======\r\ny\r\n", "", "", "", "Page contains unresolved Git conflict markers."},
		{"CR-only =======", "---\rtype: a\rstack: []\rstatus: active\rsummary: s\r---\rx\r=======\ry\r", "", "", "", "Page contains unresolved Git conflict markers."},
		{"CRLF page accepted", "---\r\ntype: a\r\nstack: []\r\nstatus: active\r\nsummary: s\r\n---\r\nbody\r\n", "a", "active", "s", ""},
		{"summary unwrapping without slug check", evPage(evBase + "summary: - [[other]]: real text\n"), "t", "active", "real text", ""},
		{"summary whitespace collapse", evPage(evBase + "summary: \"a\\u00a0\\u2028b\\u000b\\u001fc\\u3000 d\"\n"), "t", "active", "a b c d", ""},
		{"summary 160 code points", evPage(evBase + "summary: " + long160 + "\n"), "t", "active", long160, ""},
		{"summary 161 code points", evPage(evBase + "summary: " + long160 + "x\n"), "", "", "", "Page summary exceeds 160 characters (161)."},
		{"summary multi-line", evPage(evBase + "summary: \"a\\nb\"\n"), "", "", "", "Page summary must fit on one line."},
		{"summary CR", evPage(evBase + "summary: \"a\\rb\"\n"), "", "", "", "Page summary must fit on one line."},
		{"summary conflict marker", evPage(evBase + "summary: '<<<<<<< x'\n"), "", "", "", "Page summary contains a Git conflict marker."},
		{"summary empty after unwrap", evPage(evBase + "summary: \"- [[x]]:   \"\n"), "", "", "", "Page summary cannot be empty."},
		{"summary quoted empty", evPage(evBase + "summary: \"\"\n"), "", "", "", "Page summary must be a non-empty single-line string."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := validatePage(c.content, true)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				if _, ok := err.(*Error); !ok {
					t.Fatalf("error type %T, want *Error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if p.Type != c.typ || p.Status != c.status || p.Summary != c.summary || !p.HasSummary {
				t.Fatalf("got type=%q status=%q summary=%q has=%v", p.Type, p.Status, p.Summary, p.HasSummary)
			}
		})
	}
}

func TestParsePageStoredText(t *testing.T) {
	p, err := validatePage("\n\n  ---\r\ntype: a\r\nstack: []\r\nstatus: active\r\nsummary: s\r\n---\r\nbody\r\n\r\n \t", true)
	if err != nil {
		t.Fatal(err)
	}
	if want := "---\r\ntype: a\r\nstack: []\r\nstatus: active\r\nsummary: s\r\n---\r\nbody\n"; p.Text != want {
		t.Fatalf("Text = %q, want %q", p.Text, want)
	}
	// echoes-conformance §12: the page hash is of the universal-newline text.
	if got := textHash(p.Text); got != "8957748845a618320921fa2ae7b86de85e2fb85565abab02ddf3a204240b87b5" {
		t.Fatalf("TextHash = %s", got)
	}
}

func TestParsePageSummaryOptional(t *testing.T) {
	p, err := validatePage(evPage(evBase), false)
	if err != nil || p.HasSummary {
		t.Fatalf("summary-optional parse: %v, HasSummary=%v", err, p != nil && p.HasSummary)
	}
	if _, err := validatePage(evPage(evBase), true); err == nil || err.Error() != "YAML frontmatter is missing required keys: summary" {
		t.Fatalf("required: %v", err)
	}
	q, err := injectSummary(p, `He said "hi" \ é`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "---\ntype: t\nstack: []\nstatus: active\nsummary: \"He said \\\"hi\\\" \\\\ é\"\n---\n"; q.Text != want || q.Summary != `He said "hi" \ é` {
		t.Fatalf("InjectSummary text %q summary %q", q.Text, q.Summary)
	}
}

func TestNormalizeSummary(t *testing.T) {
	cases := []struct {
		v          pyjson.Value
		slug, want string
		err        string
	}{
		{pyjson.Str("  a \t b  "), "", "a b", ""},
		{pyjson.Str("- [[x]]: desc"), "x", "desc", ""},
		{pyjson.Str("- [[other]]:real text"), "", "real text", ""},
		{pyjson.Str("- [[other]]: text"), "x", "", "Index link [[other]] does not match page [[x]]."},
		{pyjson.Str("- [[]]: text"), "x", "- [[]]: text", ""},
		{pyjson.Int(5), "", "", "Page summary must be a non-empty single-line string."},
		{pyjson.NullValue(), "", "", "Page summary must be a non-empty single-line string."},
		{pyjson.Str("\u2028 \u00a0"), "", "", "Page summary must be a non-empty single-line string."},
		{pyjson.Str("a\nb"), "", "", "Page summary must fit on one line."},
		{pyjson.Str("======="), "", "", "Page summary contains a Git conflict marker."},
		{pyjson.Str(">>>>>>> b"), "", "", "Page summary contains a Git conflict marker."},
		{pyjson.Str("a\u2028b\u000bc\u00a0d\u001fe"), "", "a b c d e", ""},
		{pyjson.Str(strings.Repeat("x", 150) + strings.Repeat(" ", 20) + "y"), "", strings.Repeat("x", 150) + " y", ""},
		{pyjson.Str(strings.Repeat("€", 161)), "", "", "Page summary exceeds 160 characters (161)."},
	}
	for _, c := range cases {
		got, err := normalizeSummary(c.v, c.slug)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("NormalizeSummary(%s, %q) err = %v, want %q", pyjson.Repr(c.v), c.slug, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("NormalizeSummary(%s, %q) = %q, %v; want %q", pyjson.Repr(c.v), c.slug, got, err, c.want)
		}
	}
}
