package memory

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestSecretLines(t *testing.T) {
	sk := "sk" + "-" + strings.Repeat("x9", 12)
	aws := "AK" + "IA" + "ABCDEFGHIJKLMNOP"
	text := "line one\nkey " + sk + "\r\n\rboth " + aws + " " + sk + "\nxx" + sk + "\n"
	want := []SecretLine{{2, []string{"provider API key"}}, {4, []string{"provider API key", "AWS access key"}}}
	if got := SecretLines(text); !reflect.DeepEqual(got, want) {
		t.Errorf("SecretLines = %#v, want %#v", got, want)
	}
	if got := SecretLines("nothing here\n"); got != nil {
		t.Errorf("clean text: %#v", got)
	}
}

// FuzzSecretLines: the lines' labels are exactly the text's (no pattern
// crosses a line break), each reported line matches on its own, and the
// result never holds more than the labels.
func FuzzSecretLines(f *testing.F) {
	f.Add("key: sk-" + strings.Repeat("a", 16) + "\n")
	f.Fuzz(func(t *testing.T, text string) {
		var union []string
		for _, l := range SecretLines(text) {
			if l.Line < 1 || len(l.Labels) == 0 {
				t.Fatalf("bad line %#v", l)
			}
			for _, lab := range l.Labels {
				if !slices.Contains(union, lab) {
					union = append(union, lab)
				}
			}
		}
		want := DetectSecrets(text)
		slices.Sort(union)
		slices.Sort(want)
		if !slices.Equal(union, want) {
			t.Fatalf("lines' labels %q, text's %q", union, want)
		}
	})
}

// FuzzCheckFiles: one file at any path with any bytes; CheckFiles never
// panics, agrees with ParseDocument and the walk rules on whether the file
// is a valid memory, and reports a document's secret lines.
func FuzzCheckFiles(f *testing.F) {
	f.Add("notes/x.md", []byte("---\n"))
	f.Fuzz(func(t *testing.T, rel string, data []byte) {
		if rel == "" || strings.HasPrefix(rel, "/") || strings.HasSuffix(rel, "/") || strings.Contains(rel, "//") {
			return // not a path a snapshot lists
		}
		files := []GateFile{{Rel: rel, Regular: true, Read: func() ([]byte, error) { return data, nil }}}
		issues, docs := CheckFiles("team", files)
		reached, _ := walkFate(rel, map[string]bool{})
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		read := reached && !strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".md")
		if (docs == 1) != read {
			t.Fatalf("docs = %d for %q", docs, rel)
		}
		invalid := false
		for _, is := range issues {
			switch is.Code {
			case DiagInvalidDocument, DiagLocationMismatch, DiagSuspectedSecret:
				invalid = true
			}
		}
		if !read {
			return
		}
		valid := false
		if text, ok := DecodeUTF8Fatal(data); ok && len(data) <= MaxDocumentBytes {
			if m, err := ParseDocument(text); err == nil {
				first, _, nested := strings.Cut(rel, "/")
				valid = m.Scope == "team" && nested && first == m.Kind+"s" && !hasSecretOnRead(m)
			}
		}
		if valid == invalid {
			t.Fatalf("valid=%v but issues %#v", valid, issues)
		}
	})
}

func TestWalkFate(t *testing.T) {
	for rel, want := range map[string][2]bool{
		"notes/x.md": {true, false}, "x.md": {true, false}, ".drafts/x.md": {false, false},
		"notes/.d/x.md": {false, false}, "1/2/3/4/5/6/7/8/x.md": {true, false}, "1/2/3/4/5/6/7/8/9/x.md": {false, true},
	} {
		r, d := walkFate(rel, map[string]bool{})
		if [2]bool{r, d} != want {
			t.Errorf("walkFate(%q) = %v %v, want %v", rel, r, d, want)
		}
	}
	entries := map[string]bool{}
	walkFate("a/b/x.md", entries)
	walkFate("a/c.md", entries)
	if !reflect.DeepEqual(entries, map[string]bool{"a": true, "a/b": true, "a/b/x.md": true, "a/c.md": true}) {
		t.Errorf("entries %v", entries)
	}
}

// FuzzSecretHints: a pattern's hint holds whenever its regex matches, so
// skipping the regex on texts without the hint never misses a credential.
func FuzzSecretHints(f *testing.F) {
	for _, s := range []string{"gh" + "p_" + strings.Repeat("a", 16), "enough though", "ghs_", "x gho_" + strings.Repeat("Z", 20) + " y", "ghgh" + "r_" + strings.Repeat("0", 16)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range secretPatterns() {
			if p.re.MatchString(s) && !p.hint(s) {
				t.Fatalf("%s matches %q but its hint does not", p.Label, s)
			}
		}
	})
}
