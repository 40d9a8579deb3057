package gitvault

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// FuzzParsePage: no panic; errors are *Error; an accepted page's stored text
// ends in exactly one "\n", holds no conflict marker in either newline form,
// and re-parses to the same values.
func FuzzParsePage(f *testing.F) {
	f.Add("---\ntype: a\nstack: []\nstatus: active\nsummary: s\n---\nbody\n")
	f.Add("---\r\ntype: a\r\nstack: []\r\nstatus: active\r\nsummary: s\r\n---\r\n=======\r\n")
	f.Add("---\ntype: a\nstack:\n  - go\nstatus: X\nsummary: \"- [[o]]: t\"\n---\n")
	f.Fuzz(func(t *testing.T, content string) {
		p, err := validatePage(content, true)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if !strings.HasSuffix(p.Text, "\n") {
			t.Fatalf("stored text %q does not end in a newline", p.Text)
		}
		body := p.Text[:len(p.Text)-1]
		if r, _ := utf8.DecodeLastRuneInString(body); body == "" || pytext.IsSpace(r) {
			t.Fatalf("stored text %q does not end in exactly one newline", p.Text)
		}
		if HasConflictMarker(p.Text) || HasConflictMarker(pytext.UniversalNewlines(p.Text)) {
			t.Fatalf("accepted a conflict marker: %q", p.Text)
		}
		if pytext.Len(p.Summary) > summaryLimit || p.Summary == "" || strings.ContainsAny(p.Summary, "\r\n") {
			t.Fatalf("bad summary %q", p.Summary)
		}
		q, err := validatePage(p.Text, true)
		if err != nil {
			t.Fatalf("stored text does not re-parse: %v", err)
		}
		if q.Text != p.Text || q.Type != p.Type || q.Status != p.Status || q.Summary != p.Summary {
			t.Fatalf("re-parse differs: %+v vs %+v", q, p)
		}
		// Once written and read back as text, the page is still valid:
		// this is what keeps the vault renderable (echoes-conformance §9 Quirk).
		if _, err := validatePage(pytext.UniversalNewlines(p.Text), true); err != nil {
			t.Fatalf("stored page invalid when read back: %v", err)
		}
	})
}

// FuzzNormalizePageName: accepted names are safe, end in .md, are NFC and
// normalize to themselves.
func FuzzNormalizePageName(f *testing.F) {
	for _, s := range []string{"auth", "a.md", "../x", "Note.MD", "e\u0301", " .md ", "x..y", ".h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		name, err := normalizePageName(pyjson.Str(raw))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		stem := strings.TrimSuffix(name, ".md")
		switch {
		case !strings.HasSuffix(name, ".md"), stem == "":
			t.Fatalf("%q -> %q: bad suffix", raw, name)
		// ".." is checked on the stem (echoes-conformance §8.1 step 4): "0." gives "0..md", as in
		// the reference.
		case strings.ContainsAny(name, `/\`), strings.Contains(stem, ".."), strings.HasPrefix(name, "."):
			t.Fatalf("%q -> %q: unsafe", raw, name)
		case pytext.NFC(name) != name:
			t.Fatalf("%q -> %q: not NFC", raw, name)
		}
		again, err := normalizePageName(pyjson.Str(name))
		if err != nil || again != name {
			t.Fatalf("not idempotent: %q -> %q -> %q, %v", raw, name, again, err)
		}
	})
}

// FuzzPayloadDecode: the payload decode path never panics and reports only
// *Error; decoded objects survive the field checks of every command.
func FuzzPayloadDecode(f *testing.F) {
	for _, s := range []string{`{"entry": "x"}`, `[]`, `{"a": "\ud800"}`, "\ufeff{}", `{"filename": 1, "agent": "..."}`, "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		obj, err := decodePayload(func() ([]byte, error) { return []byte(data), nil })
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Msg == "" {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if obj == nil {
			t.Fatal("nil object without error")
		}
		check := func(err error) {
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
		}
		_, err = normalizePageName(field(obj, "filename"))
		check(err)
		pa, has := obj.Get("agent")
		_, err = resolveAgent(pa, has, nil)
		check(err)
		if c := field(obj, "content"); c.Kind == pyjson.String {
			_, err = validatePage(c.S, false)
			check(err)
		}
		_, err = normalizeSummary(field(obj, "indexDescription"), "x")
		check(err)
		// Text fields hold valid UTF-8 only: lone surrogates are refused.
		for _, k := range obj.Keys() {
			if v, _ := obj.Get(k); v.Kind == pyjson.String && !utf8.ValidString(v.S) {
				t.Fatalf("field %q holds invalid UTF-8 %q", k, v.S)
			}
		}
	})
}
