package memory

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/jsjson"
	"github.com/git-echoes/git-echoes/internal/jstext"
)

// FuzzParseDocument: the parser must never panic, and every accepted
// document must re-serialize to bytes that parse back to the same memory.
func FuzzParseDocument(f *testing.F) {
	f.Add(string(workedExample().Serialize()))
	f.Add("---\r\nschema: \"ecc.memory.v1\"\r\n---\r\n\r\nbody\r\n")
	f.Add("---\n---\n")
	f.Add("---\ntitle: \"\\ud800\"\n---NOT\n")
	f.Fuzz(func(t *testing.T, raw string) {
		// ParseDocument takes decoded text: every reader decodes fatally
		// first (ecc-conformance §6 step 1; ecc-conformance §2.7), so bytes that are not
		// UTF-8 never reach it. Feed it what the reader would.
		text, ok := DecodeUTF8Fatal([]byte(raw))
		if !ok {
			return
		}
		m, err := ParseDocument(text)
		if err != nil {
			if ErrorCode(err) != CodeInvalid {
				t.Fatalf("unexpected error code %q", ErrorCode(err))
			}
			return
		}
		out := m.Serialize()
		if !utf8.Valid(out) {
			t.Fatalf("serialized invalid UTF-8: %q", out)
		}
		back, err := ParseDocument(string(out))
		if err != nil {
			t.Fatalf("re-serialized document rejected: %v\n%s", err, out)
		}
		if jsjson.MarshalCompact(back.Full()) != jsjson.MarshalCompact(m.Full()) {
			t.Fatalf("round trip changed the memory")
		}
	})
}

// FuzzTokenize: tokens are distinct, non-empty, lowercase runs of the
// token alphabet, and validated queries never panic the scorer or excerpt.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"don't", "v2.0", "İstanbul ΟΔΟΣ", "a\tb", "😀 snake_case", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		toks := Tokenize(q)
		seen := map[string]bool{}
		for _, tok := range toks {
			if tok == "" || seen[tok] || !tokenRe().MatchString(tok) || tokenRe().FindString(tok) != tok {
				t.Fatalf("bad token %q from %q", tok, q)
			}
			seen[tok] = true
		}
		vq, err := ValidateQuery(q)
		if err != nil {
			return
		}
		m := workedExample()
		m.Body = strings.Repeat(q+" ", 40)
		if scoreMemory(m, nil, jstext.ToLower(vq), Tokenize(vq)) < 0 {
			t.Fatal("negative score")
		}
		if ex := excerpt(m.Body, Tokenize(vq)); jstext.UnitLen(ex) > 242 {
			t.Fatalf("excerpt too long: %d units", jstext.UnitLen(ex))
		}
	})
}
