package wikilink

import (
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/git-echoes/git-echoes/internal/pytext"
)

func TestScan(t *testing.T) {
	l := func(line int, text, target string, embed bool) Link {
		return Link{Line: line, Text: text, Target: target, Embed: embed}
	}
	cases := []struct {
		text string
		want []Link
	}{
		{"no links", nil},
		{"[[a]] [[b|alias]] [[c#h]] [[d#h|x]] [[e#^block]]", []Link{
			l(1, "a", "a", false), l(1, "b|alias", "b", false), l(1, "c#h", "c", false),
			l(1, "d#h|x", "d", false), l(1, "e#^block", "e", false)}},
		{"![[img.png|100]] ![[note]]", []Link{l(1, "img.png|100", "img.png", true), l(1, "note", "note", true)}},
		{"| [[page\\|alias]] |", []Link{l(1, "page\\|alias", "page", false)}},
		{"[[]] [[#self]] [[ |x]] [[  spaced  ]]", []Link{l(1, "  spaced  ", "spaced", false)}},
		{"\\[[escaped]] [[[x]]] [[a [[b]]", []Link{l(1, "x", "x", false), l(1, "b", "b", false)}},
		{"[[open\nclose]]", nil},
		{"`[[code]]` ``a ` [[also]] b`` [[real]] `unclosed [[after]]", []Link{l(1, "real", "real", false), l(1, "after", "after", false)}},
		{"```\n[[fenced]]\n```\n[[out]]", []Link{l(4, "out", "out", false)}},
		{"   ~~~~ info\n[[in]]\n~~~\n[[still in]]\n~~~~~\n[[out]]", []Link{l(6, "out", "out", false)}},
		{"    ```\n[[indented fence is code? no: four spaces]]", []Link{l(2, "indented fence is code? no: four spaces", "indented fence is code? no: four spaces", false)}},
		{"``` a`b\n[[not a fence]]", []Link{l(2, "not a fence", "not a fence", false)}},
		{"```\n[[unclosed fence]]", nil},
		{"a\r\nb\r[[c]]", []Link{l(3, "c", "c", false)}},
		// A code span inside the brackets: not a link (fuzz finding).
		{"[[``0``0]] [[`x`]] [[y]]", []Link{l(1, "y", "y", false)}},
	}
	for _, c := range cases {
		if got := Scan(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Scan(%q)\n got %#v\nwant %#v", c.text, got, c.want)
		}
	}
}

// FuzzScan: the scanner never panics, reports lines that exist,
// and each link is written as [[Text]] on its line, with a non-empty target
// that is the trimmed file part of Text.
func FuzzScan(f *testing.F) {
	for _, s := range []string{"[[a]]", "![[b.png|9]]", "`[[c]]`", "```\n[[d]]\n```", "[[e\\|f]]", "\\[[g]]", "[[[h]]]", "~~~\r\n[[i]]\r~~~\n[[j#k|l]]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		links := Scan(text)
		if !strings.Contains(text, "[[") && len(links) > 0 {
			t.Fatalf("links without [[: %#v", links)
		}
		lines := strings.Split(pytext.UniversalNewlines(text), "\n")
		for _, l := range links {
			if l.Line < 1 || l.Line > len(lines) {
				t.Fatalf("line %d of %d", l.Line, len(lines))
			}
			line := lines[l.Line-1]
			mark := "[[" + l.Text + "]]"
			if l.Embed {
				mark = "!" + mark
			}
			if !strings.Contains(line, mark) {
				t.Fatalf("%q not on line %q", mark, line)
			}
			if l.Target == "" || l.Target != strings.TrimSpace(l.Target) || strings.ContainsAny(l.Target, "[]|#\n") ||
				!strings.HasPrefix(strings.TrimLeftFunc(l.Text, unicode.IsSpace), l.Target) {
				t.Fatalf("bad target %q of %q", l.Target, l.Text)
			}
		}
	})
}
