package gitvault

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// TestNormalizePageName covers echoes-conformance §8.1 and protocol §7.1.
func TestNormalizePageName(t *testing.T) {
	ok := map[string]string{
		"auth":             "auth.md",
		"auth.md":          "auth.md",
		" auth.md\t":       "auth.md",
		"a.md.md":          "a.md.md",
		"Note.MD":          "Note.MD.md",
		"a.b":              "a.b.md",
		"e\u0301":          "\u00e9.md",
		"x (y): 'z'":       "x (y): 'z'.md",
		"straße":           "straße.md",
		"\u00a0name\u2028": "name.md",
	}
	for in, want := range ok {
		got, err := normalizePageName(pyjson.Str(in))
		if err != nil || got != want {
			t.Errorf("NormalizePageName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	bad := map[string]string{
		"../x":       `Unsafe page filename: '../x'`,
		"a/b":        `Unsafe page filename: 'a/b'`,
		`a\b`:        `Unsafe page filename: 'a\\b'`,
		"x..y":       `Unsafe page filename: 'x..y'`,
		"..":         `Unsafe page filename: '..'`,
		".":          `Unsafe page filename: '.'`,
		".md":        `Unsafe page filename: '.md'`,
		" .md ":      `Unsafe page filename: ' .md '`,
		"it's/x":     `Unsafe page filename: "it's/x"`,
		"a\n/b":      `Unsafe page filename: 'a\n/b'`,
		".hidden":    "Hidden page filenames are not allowed.",
		".x.md":      "Hidden page filenames are not allowed.",
		"":           "Page filename must be a non-empty string.",
		" \t\u3000":  "Page filename must be a non-empty string.",
		"\xf2\u0343": "Page filename must be valid UTF-8.", // NFC maps U+0343 to U+0313 but not after a stray byte
		"a\xff.md":   "Page filename must be valid UTF-8.",
	}
	for in, want := range bad {
		_, err := normalizePageName(pyjson.Str(in))
		if err == nil || err.Error() != want {
			t.Errorf("NormalizePageName(%q) err = %v, want %q", in, err, want)
		}
	}
	for _, v := range []pyjson.Value{pyjson.NullValue(), pyjson.Int(1), pyjson.Boolean(true), pyjson.Arr(pyjson.Str("a"))} {
		if _, err := normalizePageName(v); err == nil || err.Error() != "Page filename must be a non-empty string." {
			t.Errorf("NormalizePageName(%s) err = %v", pyjson.Repr(v), err)
		}
	}
}

// TestListPageNames covers echoes-conformance §8.2: direct regular non-symlink children with a
// case-insensitive .md suffix, Python stems, sorted by (casefold, NFC).
func TestListPageNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.md", "b-x.md", "a.b.md", ".md", "X.MD", "Note.MD", ".x.md", "notes.txt", "a_b.md", "a.md",
		"straße.md", "STRASSE-x.md", "é.md", "z.Md", "md"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	got, err := listPageNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".x.md", "a.b.md", "a.md", "a_b.md", "b-x.md", "b.md", "Note.MD", "STRASSE-x.md", "straße.md", "X.MD", "z.Md", "é.md"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("listing\n got %q\nwant %q", got, want)
	}
	stems := map[string]string{"a.b.md": "a.b", ".x.md": ".x", "X.MD": "X", "Note.MD": "Note", ".md": ".md", "a.md.md": "a.md", "md": "md", "x.": "x."}
	for name, stem := range stems {
		if got := PageStem(name); got != stem {
			t.Errorf("PageStem(%q) = %q, want %q", name, got, stem)
		}
	}
	for name, page := range map[string]bool{".md": false, "x.": false, "a.MD": true, "a.mD": true, "a.markdown": false} {
		if IsPageFileName(name) != page {
			t.Errorf("IsPageFileName(%q) = %v", name, !page)
		}
	}
}
