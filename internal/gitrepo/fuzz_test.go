package gitrepo

import (
	"strings"
	"testing"
)

// FuzzIgnorePattern parses arbitrary exclude files and matches arbitrary
// paths. Beyond "never panics" it checks properties that hold in git:
// directory-only patterns never match files, and a pattern escaping every
// byte of a name matches that name. (Case folding is not monotonic in git:
// "[A]" matches "A" but, with core.ignoreCase, neither "A" nor "a".)
func FuzzIgnorePattern(f *testing.F) {
	f.Add("*.log\n!keep.log\nbuild/\n", "a/build/x.log", false)
	f.Add("\xef\xbb\xbf/a/**/b\r\n[!a-c]?\n", "a/x/y/b", true)
	f.Add("[[:alpha:]\n\\\n[]\n**/\n", "]", false)
	f.Fuzz(func(t *testing.T, data, path string, isDir bool) {
		if checkPath(path) != nil || strings.IndexByte(path, 0) >= 0 {
			return
		}
		ps := parsePatterns([]byte(data), "", ".gitignore")
		for _, m := range []matcher{{ignoreCase: false}, {ignoreCase: true}} {
			got := m.lastMatch(ps, path, isDir)
			if got != nil && got.flags&flagMustBeDir != 0 && !isDir {
				t.Fatalf("directory-only pattern %q matched the file %q", got.text, path)
			}
		}
		var esc strings.Builder
		for i := 0; i < len(path); i++ {
			if path[i] != '/' {
				esc.WriteByte('\\')
			}
			esc.WriteByte(path[i])
		}
		if !wildmatch(esc.String(), path, wmPathname) {
			t.Fatalf("escaped literal %q does not match %q", esc.String(), path)
		}
	})
}

// FuzzParseIndex feeds arbitrary bytes (after a valid header) to the index
// reader: it must fail cleanly, never panic or over-allocate.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + strings.Repeat("\x00", 62) + "\x05a\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Zero trailer: exercise the parser rather than the checksum.
		in := append(append([]byte(nil), data...), make([]byte, 20)...)
		entries, err := parseIndex(in)
		if err == nil {
			for _, e := range entries {
				if e.stage < 0 || e.stage > 3 {
					t.Fatalf("stage %d out of range", e.stage)
				}
			}
		}
	})
}

// FuzzParseConfig feeds arbitrary config text to the parser.
func FuzzParseConfig(f *testing.F) {
	f.Add("[core]\n\tignoreCase = true\n[a \"b\\\"c\"]\nk = \"v ; x\" # c\n")
	f.Add("[a.B] k\n[x]y=1\\\n2\n")
	f.Fuzz(func(t *testing.T, data string) {
		c := &configParser{}
		if err := c.parse([]byte(data), "fuzz", maxIncludeDepth); err != nil {
			return
		}
		for _, e := range c.out {
			if e.key == "" || strings.ToLower(e.section) != e.section {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}
