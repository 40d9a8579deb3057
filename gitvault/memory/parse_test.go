package memory

import (
	"strings"
	"testing"
)

// docText renders a document with the given frontmatter lines and body.
func docText(lines []string, sep, body string) string {
	return "---" + sep + strings.Join(lines, sep) + sep + "---" + sep + sep + body + sep
}

func goodLines() []string {
	return strings.Split(strings.TrimSuffix(string(workedExample().Serialize()[4:strings.Index(string(workedExample().Serialize()), "\n---\n")+1]), "\n"), "\n")
}

func TestMemoryParseAcceptance(t *testing.T) {
	lines := goodLines()
	if len(lines) != 13 {
		t.Fatalf("fixture has %d lines", len(lines))
	}
	with := func(i int, l string) []string {
		c := append([]string(nil), lines...)
		c[i] = l
		return c
	}
	accepted := map[string]string{
		"lf":              docText(lines, "\n", "body"),
		"crlf":            docText(lines, "\r\n", "body"),
		"bom stripped":    mustDecodeUTF8(t, "\ufeff"+docText(lines, "\n", "body")),
		"spaced arrays":   docText(with(9, `tags: ["auth", "migration"]`), "\n", "body"),
		"spaced key":      docText(with(2, ` title : "Authentication migration handoff"`), "\n", "body"),
		"trimmed enum":    docText(with(3, `kind: " handoff "`), "\n", "body"),
		"reordered keys":  docText(append(append([]string(nil), lines[1:]...), lines[0]), "\n", "body"),
		"later dashes":    docText(lines, "\n", "body\n---\nmore"),
		"no body newline": "---\n" + strings.Join(lines, "\n") + "\n---\nbody",
		"interior cr":     docText(lines, "\n", "a\rb"),
		"escaped title":   docText(with(2, `title: "A \u0041 \ud800"`), "\n", "body"),
	}
	for name, text := range accepted {
		if _, err := ParseDocument(text); err != nil {
			t.Errorf("%s: rejected: %v", name, err)
		}
	}
	m, err := ParseDocument(docText(with(3, `kind: " handoff "`), "\r\n", "\r\n  a\r\nb  \r\n"))
	if err != nil || m.Kind != "handoff" || m.Body != "a\r\nb" {
		t.Fatalf("normalization: %+v %v", m, err)
	}
	rejected := map[string]string{
		"no opening":          "--\n" + strings.Join(lines, "\n") + "\n---\n\nbody\n",
		"leading space":       " " + docText(lines, "\n", "body"),
		"double bom":          "\ufeff" + docText(lines, "\n", "body"),
		"no closing":          "---\n" + strings.Join(lines, "\n") + "\n\nbody\n",
		"closing not alone":   "---\n" + strings.Join(lines, "\n") + "\n---NOT\n\nbody\n",
		"blank line":          docText(append([]string{""}, lines...), "\n", "body"),
		"missing key":         docText(lines[1:], "\n", "body"),
		"repeated key":        docText(append(append([]string(nil), lines...), lines[2]), "\n", "body"),
		"unknown key":         docText(append(append([]string(nil), lines...), `extra: 1`), "\n", "body"),
		"camel key":           docText(with(7, `sourceHarness: "codex"`), "\n", "body"),
		"colon first":         docText(append(append([]string(nil), lines...), `: "x"`), "\n", "body"),
		"not json":            docText(with(2, `title: Authentication`), "\n", "body"),
		"single quotes":       docText(with(2, `title: 'x'`), "\n", "body"),
		"schema trimmed":      docText(with(0, `schema: " ecc.memory.v1"`), "\n", "body"),
		"number title":        docText(with(2, `title: 5`), "\n", "body"),
		"blank body":          docText(lines, "\n", " \t "),
		"empty body":          "---\n" + strings.Join(lines, "\n") + "\n---\n",
		"bad timestamp":       docText(with(11, `created_at: "2026-02-30T00:00:00.000Z"`), "\n", "body"),
		"reviewed trust":      docText(with(5, `trust: "reviewed"`), "\n", "body"),
		"control in body":     docText(lines, "\n", "a\x01b"),
		"empty frontmatter":   "---\n---\n\nbody\n",
		"uppercase tag":       docText(with(9, `tags: ["Auth"]`), "\n", "body"),
		"oversized":           docText(lines, "\n", strings.Repeat("a", MaxDocumentBytes)),
		"body too large":      docText(lines, "\n", strings.Repeat("a", MaxBodyBytes+1)),
		"targets empty array": docText(with(8, `target_harnesses: []`), "\n", "body"),
	}
	for name, text := range rejected {
		if _, err := ParseDocument(text); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, ok := DecodeUTF8Fatal([]byte("a\xffb")); ok {
		t.Error("invalid UTF-8 must be refused")
	}
	if s, ok := DecodeUTF8Fatal([]byte("\xef\xbb\xbf\xef\xbb\xbfx")); !ok || s != "\ufeffx" {
		t.Errorf("exactly one BOM is stripped: %q", s)
	}
}

func TestMemoryParseKeepsLoneSurrogateEscapes(t *testing.T) {
	lines := goodLines()
	lines[2] = `title: "half \udc00 pair"`
	m, err := ParseDocument(docText(lines, "\n", "body"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(m.Serialize()); !strings.Contains(got, `title: "half \udc00 pair"`) {
		t.Fatalf("escape not preserved:\n%s", got)
	}
}

func mustDecodeUTF8(t *testing.T, s string) string {
	t.Helper()
	text, ok := DecodeUTF8Fatal([]byte(s))
	if !ok {
		t.Fatalf("cannot decode %q", s)
	}
	return text
}
