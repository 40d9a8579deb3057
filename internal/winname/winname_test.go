package winname

import "testing"

func TestReason(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		// Ordinary names, including near misses of device names.
		{"auth.md", ""},
		{"a.b (c): 'd'.md", "character ':' is not allowed"},
		{"console.md", ""},
		{"CONX.md", ""},
		{"COM0.md", ""}, // neither Microsoft nor Git for Windows reserves COM0
		{"COM10.md", ""},
		{"LPT10", ""},
		{"xCON.md", ""},
		{"CON-notes.md", ""},
		{"CONIN.md", ""},
		{"CONOUT.md", ""},
		{" CON.md", ""}, // a leading space makes it another name
		{"ſon.md", ""},  // U+017F folds to s in Unicode, not in device names
		{"NUL\u00a0.md", ""},
		{"COM\u2074.md", ""}, // superscript four is not reserved
		{"é.md", ""},
		{"e\u0301.md", ""},
		{"x\x7f.md", ""}, // DEL is allowed
		{".hidden", ""},
		{"", ""},
		{".", ""},
		{"..", ""},
		// Reserved device names, any case, any extension, spaces before it.
		{"CON", "reserved device name CON"},
		{"con.md", "reserved device name CON"},
		{"Con.MD", "reserved device name CON"},
		{"PRN.md", "reserved device name PRN"},
		{"aux.png", "reserved device name AUX"},
		{"nul.tar.gz", "reserved device name NUL"},
		{"NUL", "reserved device name NUL"},
		{"CON .md", "reserved device name CON"},
		{"CON   .md", "reserved device name CON"},
		{"com1.md", "reserved device name COM1"},
		{"COM9", "reserved device name COM9"},
		{"lpt1.txt", "reserved device name LPT1"},
		{"LPT9.md", "reserved device name LPT9"},
		{"LPT0.md", "reserved device name LPT0"}, // Git for Windows refuses it
		{"COM¹.md", "reserved device name COM¹"},
		{"com².md", "reserved device name COM²"},
		{"LPT³", "reserved device name LPT³"},
		{"conin$.md", "reserved device name CONIN$"},
		{"CONOUT$", "reserved device name CONOUT$"},
		{"CON..md", "reserved device name CON"},
		// Reserved characters and control characters.
		{"a<b.md", "character '<' is not allowed"},
		{"a>b.md", "character '>' is not allowed"},
		{"a:b.md", "character ':' is not allowed"},
		{`a"b.md`, `character '"' is not allowed`},
		{"a|b.md", "character '|' is not allowed"},
		{"what?.md", "character '?' is not allowed"},
		{"*.md", "character '*' is not allowed"},
		{`a\b.md`, `character '\\' is not allowed`},
		{"a/b", "character '/' is not allowed"},
		{"a\x00b", "control character U+0000 is not allowed"},
		{"tab\there.md", "control character U+0009 is not allowed"},
		{"x\x1f.md", "control character U+001F is not allowed"},
		{"CON:x", "character ':' is not allowed"}, // the first problem is reported
		// Trailing dot or space.
		{"notes.", "ends with '.'"},
		{"notes ", "ends with a space"},
		{"dir...", "ends with '.'"},
		{"CON ", "reserved device name CON"},
	} {
		if got := Reason(tc.name); got != tc.want {
			t.Errorf("Reason(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestPathReason(t *testing.T) {
	for _, tc := range []struct{ path, prefix, reason string }{
		{"EchoesVault/pages/auth.md", "", ""},
		{"EchoesVault/pages/CON.md", "EchoesVault/pages/CON.md", "reserved device name CON"},
		{"EchoesVault/assets/aux/logo.png", "EchoesVault/assets/aux", "reserved device name AUX"},
		{"EchoesVault/raw/draft./x.md", "EchoesVault/raw/draft.", "ends with '.'"},
		{"EchoesVault/raw/a b /x?.md", "EchoesVault/raw/a b ", "ends with a space"},
		{"nul", "nul", "reserved device name NUL"},
		{"a//b", "", ""},
		{"", "", ""},
	} {
		prefix, reason := PathReason(tc.path)
		if prefix != tc.prefix || reason != tc.reason {
			t.Errorf("PathReason(%q) = %q, %q; want %q, %q", tc.path, prefix, reason, tc.prefix, tc.reason)
		}
	}
}
