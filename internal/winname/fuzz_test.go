package winname

import (
	"regexp"
	"strings"
	"testing"
)

// An independent statement of the rule, as regular expressions over the
// whole component, to check Reason against.
var (
	oracleDevice = regexp.MustCompile(`^(?:[Cc][Oo][Nn]|[Pp][Rr][Nn]|[Aa][Uu][Xx]|[Nn][Uu][Ll]|[Cc][Oo][Mm][1-9¹²³]|[Ll][Pp][Tt][0-9¹²³]|[Cc][Oo][Nn][Ii][Nn]\$|[Cc][Oo][Nn][Oo][Uu][Tt]\$) *(?:\..*)?$`)
	oracleChar   = regexp.MustCompile(`[<>:"|?*\\/\x00-\x1f]`)
)

// FuzzReason checks Reason against the oracle and PathReason against
// Reason for any input, valid UTF-8 or not. The seed corpus is in
// testdata/fuzz/FuzzReason; run with go test -fuzz=FuzzReason.
func FuzzReason(f *testing.F) {
	for _, s := range []string{"CON.md", "con .md", "COM¹", "LPT0.x", "a:b", "x.", "x ", "ok.md", "CONIN$", "e\u0301.md", "aux/b", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := Reason(name)
		bad := name != "." && name != ".." && name != "" &&
			(oracleChar.MatchString(name) || oracleDevice.MatchString(name) ||
				strings.HasSuffix(name, ".") || strings.HasSuffix(name, " "))
		if (got != "") != bad {
			t.Fatalf("Reason(%q) = %q, oracle says bad=%v", name, got, bad)
		}
		if Reason(name) != got {
			t.Fatalf("Reason(%q) is not deterministic", name)
		}
		prefix, reason := PathReason(name)
		switch {
		case prefix == "" && reason != "", prefix != "" && reason == "":
			t.Fatalf("PathReason(%q) = %q, %q: prefix and reason disagree", name, prefix, reason)
		case prefix != "":
			if !strings.HasPrefix(name, prefix) || Reason(prefix[strings.LastIndexByte(prefix, '/')+1:]) != reason {
				t.Fatalf("PathReason(%q) = %q, %q: not the reason of its last component", name, prefix, reason)
			}
		}
		// Every component before the reported one is fine.
		parts := strings.Split(name, "/")
		for i, c := range parts {
			if r := Reason(c); r != "" {
				want := strings.Join(parts[:i+1], "/")
				if prefix != want || reason != r {
					t.Fatalf("PathReason(%q) = %q, %q; want %q, %q", name, prefix, reason, want, r)
				}
				return
			}
		}
		if prefix != "" {
			t.Fatalf("PathReason(%q) = %q, %q for a path whose components are all fine", name, prefix, reason)
		}
	})
}
