package gitvault

import (
	"strings"
	"testing"
)

// TestParsePageLoneSurrogateScalars: Python's json.loads keeps a \ud800-style
// escape in the decoded string (echoes-conformance §2.9), so a page whose quoted type or status
// holds one is valid for the reference engine (echoes-conformance §9 step 8); neither value is
// ever written. Refusing it would block every index render on a vault the
// reference indexes. A summary holding one is still refused: it would be
// written into index.md, which the reference cannot encode (echoes-conformance §4.5 Quirk).
func TestParsePageLoneSurrogateScalars(t *testing.T) {
	for _, tc := range []struct{ name, fm, err string }{
		{"type", "type: \"\\ud800\"\nstack: []\nstatus: active\nsummary: s\n", ""},
		{"status", "type: t\nstack: []\nstatus: \"\\udc00X\"\nsummary: s\n", ""},
		{"summary", "type: t\nstack: []\nstatus: active\nsummary: \"\\ud800\"\n", "Invalid quoted YAML value for summary: "},
		{"syntax error still reported", "type: \"\\ud800\" x\nstack: []\nstatus: active\nsummary: s\n", "Invalid quoted YAML value for type: Extra data"},
	} {
		p, err := validatePage(evPage(tc.fm), true)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want prefix %q", tc.name, err, tc.err)
		case tc.err == "" && (p.Summary != "s" || p.Deprecated()):
			t.Errorf("%s: summary %q deprecated %v", tc.name, p.Summary, p.Deprecated())
		}
	}
}
