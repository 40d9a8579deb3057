package frontmatter

import (
	"reflect"
	"strings"
	"testing"
)

// The Scan input is already normalized: strip(content) + "\n".
func TestScanAcceptance(t *testing.T) {
	type key struct {
		Name, Raw string
		Valued    bool
	}
	cases := []struct {
		name string
		text string
		keys []key
		err  string
	}{
		{"minimal", "---\ntype: a\n---\n", []key{{"type", "a", true}}, ""},
		{"no space after colon", "---\ntype:a\n---\n", []key{{"type", "a", true}}, ""},
		{"space before colon is not a key", "---\ntype : a\n---\n", nil, ""},
		{"digit first is not a key", "---\n1type: a\nfoo bar\n- item\n---\n", nil, ""},
		{"key charset", "---\na_B-9: x\n---\n", []key{{"a_B-9", "x", true}}, ""},
		{"indented lines are skipped", "---\n  type: a\n\ttype: b\n\u3000x: y\n---\n", nil, ""},
		{"comments are skipped", "---\n# type: a\n   # status: b\ntype: c\n---\n", []key{{"type", "c", true}}, ""},
		{"blank inline value, not valued", "---\nstack:\n---\n", []key{{"stack", "", false}}, ""},
		{"blank value then indented list", "---\nstack:\n  - go\n---\n", []key{{"stack", "", true}}, ""},
		{"indented list after comments and blanks", "---\nstack:\n# c\n\n  # indented comment\n  - go\n---\n", []key{{"stack", "", true}}, ""},
		{"unindented list is not a value", "---\nstack:\n- go\n---\n", []key{{"stack", "", false}}, ""},
		{"next key is not a value", "---\nstack:\ntype: a\n---\n", []key{{"stack", "", false}, {"type", "a", true}}, ""},
		{"trailing whitespace value", "---\nstack: \t \n---\n", []key{{"stack", "", false}}, ""},
		{"value keeps trailing text", "---\nstatus:   active # c  \n---\n", []key{{"status", "active # c  ", true}}, ""},
		{"duplicate key", "---\ntype: a\nother: x\ntype: b\n---\n", nil, "YAML frontmatter contains duplicate key: type"},
		{"duplicate of any key", "---\nx: 1\nx:\n---\n", nil, "YAML frontmatter contains duplicate key: x"},
		{"indented repeat is not a duplicate", "---\ntype: a\n  type: b\n---\n", []key{{"type", "a", true}}, ""},
		{"no frontmatter", "# Title\n", nil, "Every page must begin with YAML frontmatter."},
		{"BOM before ---", "\ufeff---\ntype: a\n---\n", nil, "Every page must begin with YAML frontmatter."},
		{"--- with trailing space", "--- \ntype: a\n---\n", nil, "Every page must begin with YAML frontmatter."},
		{"missing close", "---\ntype: a\n", nil, "YAML frontmatter is missing its closing '---'."},
		{"close with trailing space mid-text", "---\ntype: a\n--- \nbody\n", nil, "YAML frontmatter is missing its closing '---'."},
		{"close as last line (already stripped)", "---\ntype: a\n---\n", []key{{"type", "a", true}}, ""},
		{"empty", "---\n---\n", nil, "YAML frontmatter cannot be empty."},
		{"setext-style close", "---\ntype: a\n----\n---\n", []key{{"type", "a", true}}, ""},
		{"CRLF lines", "---\r\ntype: a\r\n---\r\nbody\n", []key{{"type", "a", true}}, ""},
		{"U+2028 splits a line", "---\ntype: a\u2028status: b\n---\n", []key{{"type", "a", true}, {"status", "b", true}}, ""},
		{"U+001F is not a separator", "---\ntype: a\x1fb\n---\n", []key{{"type", "a\x1fb", true}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := Scan(c.text)
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			var got []key
			for _, k := range b.Keys {
				got = append(got, key{k.Name, k.Raw, k.Valued})
			}
			if !reflect.DeepEqual(got, c.keys) {
				t.Fatalf("keys = %+v, want %+v", got, c.keys)
			}
		})
	}
}

func TestMissing(t *testing.T) {
	b, err := Scan("---\ntype: a\nstack:\nsummary: \"\"\n---\n")
	if err != nil {
		t.Fatal(err)
	}
	missing := b.Missing([]string{"type", "stack", "status", "summary"})
	if !reflect.DeepEqual(missing, []string{"stack", "status"}) {
		t.Fatalf("missing = %q", missing)
	}
	if got := MissingError(missing).Error(); got != "YAML frontmatter is missing required keys: stack, status" {
		t.Fatalf("message = %q", got)
	}
}

func TestDecodeScalar(t *testing.T) {
	cases := []struct{ raw, want, err string }{
		{"active", "active", ""},
		{"  active  ", "active", ""},
		{"active # c", "active # c", ""},
		{`"x"`, "x", ""},
		{`"Quoted \u00e9"`, "Quoted é", ""},
		{`""`, "", ""},
		{`''`, "", ""},
		{`'it''s'`, "it's", ""},
		{`'a'b'`, "a'b", ""},
		{`'`, "'", ""},
		{`'abc`, "'abc", ""},
		{`abc'`, "abc'", ""},
		{`"x" # c`, "", "Invalid quoted YAML value for status: Extra data: line 1 column 5 (char 4)"},
		{`"unterminated`, "", "Invalid quoted YAML value for status: Unterminated string starting at: line 1 column 1 (char 0)"},
		{`"tab	inside"`, "", "Invalid quoted YAML value for status: Invalid control character at: line 1 column 5 (char 4)"},
		{"", "", "YAML frontmatter key 'status' must have an inline value."},
		{" \t", "", "YAML frontmatter key 'status' must have an inline value."},
	}
	for _, c := range cases {
		got, err := DecodeScalar("status", c.raw)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("DecodeScalar(%q) err = %v, want %q", c.raw, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("DecodeScalar(%q) = %q, %v; want %q", c.raw, got, err, c.want)
		}
	}
}

// FuzzFrontmatterScan: Scan never panics, is deterministic, and reports each
// top-level key once.
func FuzzFrontmatterScan(f *testing.F) {
	for _, s := range []string{
		"---\ntype: a\nstack: []\nstatus: active\nsummary: s\n---\n",
		"---\nstack:\n# c\n  - go\n---\n",
		"---\ntype: a\ntype: b\n---\n",
		"---\r\ntype:a\r\n---\r\n",
		"\ufeff---\n---\n",
		"---\nsummary: \"x\" # c\n---\n",
		"---\nx:\u2028  y\n---\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		b1, err1 := Scan(text)
		b2, err2 := Scan(text)
		if (err1 == nil) != (err2 == nil) || (err1 != nil && err1.Error() != err2.Error()) {
			t.Fatalf("Scan is not deterministic: %v vs %v", err1, err2)
		}
		if err1 != nil {
			if _, ok := err1.(*Error); !ok {
				t.Fatalf("error of type %T", err1)
			}
			return
		}
		if !reflect.DeepEqual(b1, b2) {
			t.Fatal("Scan is not deterministic")
		}
		if b1.Lines[0] != "---" || b1.Lines[b1.Close] != "---" || b1.Close < 2 {
			t.Fatalf("bad delimiters: %q close=%d", b1.Lines, b1.Close)
		}
		seen := map[string]bool{}
		for _, k := range b1.Keys {
			if seen[k.Name] {
				t.Fatalf("key %q reported twice", k.Name)
			}
			seen[k.Name] = true
			if k.Line <= 0 || k.Line >= b1.Close || !strings.HasPrefix(b1.Lines[k.Line], k.Name+":") {
				t.Fatalf("key %q at line %d: %q", k.Name, k.Line, b1.Lines[k.Line])
			}
			if _, err := DecodeScalar(k.Name, k.Raw); err != nil {
				if _, ok := err.(*Error); !ok {
					t.Fatalf("DecodeScalar error of type %T", err)
				}
			}
		}
	})
}
