package jsjson

import (
	"math"
	"math/rand"
	"strings"
	"testing"
)

func TestJSONEncoding(t *testing.T) {
	got := MarshalCompact(Object{{"s", "a\"\\\b\t\n\f\r\x01\x1f\x7f<>&\u2028\u2029é😀\xed\xa0\x80"}, {"a", []string{}}, {"o", Object{}}, {"n", nil}, {"b", true}, {"i", 42}})
	want := `{"s":"a\"\\\b\t\n\f\r\u0001\u001f` + "\x7f<>&\u2028\u2029é😀" + `\ud800","a":[],"o":{},"n":null,"b":true,"i":42}`
	if got != want {
		t.Fatalf("compact:\n%s\n%s", got, want)
	}
	pretty := MarshalPretty(Object{{"a", []string{"x", "y"}}, {"e", []any{}}, {"o", Object{{"k", 1}}}})
	if pretty != "{\n  \"a\": [\n    \"x\",\n    \"y\"\n  ],\n  \"e\": [],\n  \"o\": {\n    \"k\": 1\n  }\n}" {
		t.Fatalf("pretty:\n%s", pretty)
	}
}

func TestJSONParsing(t *testing.T) {
	ok := map[string]string{
		`"x"`:                  `"x"`,
		`["a", "b"]`:           `["a","b"]`,
		`"\ud800"`:             `"\ud800"`,
		`"\ud83d\ude00"`:       `"😀"`,
		`"\ud800\u0041"`:       `"\ud800A"`,
		`"\/\u00e9"`:           `"/é"`,
		" \t\n\r[ ] ":          `[]`,
		`[1,-0.5e3,true,null]`: `[1,-500,true,null]`,
	}
	for in, want := range ok {
		v, err := Parse(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if got := MarshalCompact(normalizeParsed(v)); got != want {
			t.Errorf("%q: got %s want %s", in, got, want)
		}
	}
	if v, err := Parse(`{"a":1,"a":2}`); err != nil || v.(map[string]any)["a"] != 2.0 {
		t.Errorf("duplicate keys: last value must win: %v %v", v, err)
	}
	for _, in := range []string{``, `'x'`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `+1`, `NaN`, `"a` + "\n" + `"`, `"\x"`, `"\u12"`, `[1] 2`, `tru`, `{a:1}`, "\u00a01"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("%q should be rejected", in)
		}
	}
}

// normalizeParsed converts decoded maps into Objects for printing (sorted
// keys are irrelevant: the tests only use arrays and scalars).
func normalizeParsed(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeParsed(e)
		}
		return out
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return int(x)
		}
	}
	return v
}

// FuzzParseJSON: the frontmatter value parser never panics, and what it
// accepts the encoder writes back to something it accepts again.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`"x"`, `["a", "b"]`, `"\ud800"`, `{"a":[1,{"b":null}]}`, `-0.5e-3`, `[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Parse(s)
		if err != nil {
			return
		}
		if _, err := Parse(MarshalCompact(toEncodable(v))); err != nil {
			t.Fatalf("re-encoded value rejected: %v", err)
		}
	})
}

// toEncodable turns decoded maps into Objects (key order is irrelevant to
// re-parsing).
func toEncodable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		o := Object{}
		for k, e := range x {
			o = append(o, Field{k, toEncodable(e)})
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toEncodable(e)
		}
		return out
	}
	return v
}

// TestParseStringPaths: strings with and without escapes decode to the
// same text through the copy-free fast path and the escape-aware loop.
func TestParseStringPaths(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	pieces := []string{"a", " ", "é", "😀", "/", "\"", "\\", "\n", "\t", "\x01", "\u2028", "\x7f"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.Intn(8); n > 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		s := b.String()
		enc := MarshalCompact(s)
		v, err := Parse(enc)
		if err != nil || v != s {
			t.Fatalf("%q: %q %v", enc, v, err)
		}
		// The same text behind escapes only: `\/` decodes to '/'.
		if v, err := Parse(strings.Replace(enc, "/", `\/`, 1)); err != nil || v != s {
			t.Fatalf("%q with \\/: %q %v", enc, v, err)
		}
		// Raw control characters and a missing closing quote stay errors.
		if _, err := Parse(`"` + s + "\x02" + `"`); err == nil {
			t.Fatalf("raw control character accepted in %q", s)
		}
		if _, err := Parse(enc[:len(enc)-1]); err == nil {
			t.Fatalf("unterminated %q accepted", enc)
		}
	}
}
