package gitvault

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestNormalizeAgent covers echoes-conformance §13.3.
func TestNormalizeAgent(t *testing.T) {
	ok := map[string]string{
		"Claude Code":                  "claude-code",
		"--X--":                        "x",
		"ÉCOLE":                        "cole",
		"codex":                        "codex",
		" My_Agent.v2 ":                "my_agent.v2",
		"a  /\\ b":                     "a-b",
		"Straße":                       "strasse",
		".a.":                          "a",
		strings.Repeat("a", 39) + " b": strings.Repeat("a", 39) + "-",
		strings.Repeat("a", 39) + ".b": strings.Repeat("a", 39) + ".",
		strings.Repeat("é", 3) + strings.Repeat("b", 45): strings.Repeat("b", 40),
	}
	for in, want := range ok {
		got, err := NormalizeAgent(in)
		if err != nil || got != want {
			t.Errorf("NormalizeAgent(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"...", "-", "é", " .-. "} {
		if _, err := NormalizeAgent(in); err == nil || err.Error() != "Payload agent must contain at least one letter or number." {
			t.Errorf("NormalizeAgent(%q) err = %v", in, err)
		}
	}
}

func TestResolveAgent(t *testing.T) {
	flag := "Flag Agent"
	empty := ""
	cases := []struct {
		payload pyjson.Value
		has     bool
		flag    *string
		want    string // "" = no agent
		err     string
	}{
		{pyjson.Str("Codex"), true, &flag, "codex", ""},
		{pyjson.Str(""), true, &flag, "flag-agent", ""},
		{pyjson.NullValue(), true, &flag, "flag-agent", ""},
		{pyjson.Boolean(false), true, &flag, "flag-agent", ""},
		{pyjson.Int(0), true, &flag, "flag-agent", ""},
		{pyjson.NullValue(), false, nil, "", ""},
		{pyjson.Str(""), true, nil, "", ""},
		{pyjson.Int(7), true, nil, "", "Payload agent must be a non-empty string when provided."},
		{pyjson.Arr(pyjson.Str("a")), true, nil, "", "Payload agent must be a non-empty string when provided."},
		{pyjson.Str("  "), true, nil, "", "Payload agent must be a non-empty string when provided."},
		{pyjson.NullValue(), false, &empty, "", "Payload agent must be a non-empty string when provided."},
		{pyjson.Str("..."), true, &flag, "", "Payload agent must contain at least one letter or number."},
	}
	for i, c := range cases {
		got, err := resolveAgent(c.payload, c.has, c.flag)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("case %d: err = %v, want %q", i, err, c.err)
			}
			continue
		}
		if err != nil || (got == nil) != (c.want == "") || (got != nil && *got != c.want) {
			t.Errorf("case %d: got %v, %v; want %q", i, got, err, c.want)
		}
	}
}

func TestDailyEntry(t *testing.T) {
	fixed := time.Date(2026, 11, 30, 5, 58, 11, 659916999, time.UTC)
	old := Now
	Now = func() time.Time { return fixed }
	defer func() { Now = old }()
	ws := newWorkspace(t.TempDir())
	agent := "my-agent"
	path, content, err := ws.dailyEntry(kindScratchpad, "  hello\r\nworld\n\n", &agent)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(ws.Daily, path)
	if !regexp.MustCompile(`^2026-11-30/20261130T055811659916Z-scratchpad-my-agent-[0-9a-f]{8}\.md$`).MatchString(filepath.ToSlash(rel)) {
		t.Fatalf("path %s", rel)
	}
	want := "### Scratchpad — " + LocalTimestamp(fixed) + "\n\nAgent: `my-agent`\n\nhello\r\nworld\n"
	if string(content) != want {
		t.Fatalf("content %q, want %q", content, want)
	}
	path2, content2, err := ws.dailyEntry(kindSession, "done", nil)
	if err != nil {
		t.Fatal(err)
	}
	if path2 == path || !strings.Contains(path2, "Z-session-") || string(content2) != "### Session — "+LocalTimestamp(fixed)+"\n\ndone\n" {
		t.Fatalf("session entry %s %q", path2, content2)
	}
	if got := LocalTimestamp(time.Date(2026, 9, 4, 9, 34, 56, 0, time.FixedZone("", 3*3600))); !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$`).MatchString(got) {
		t.Fatalf("LocalTimestamp %q", got)
	}
}

// TestSymlinkedDailyRootIsWalked: a daily/ that is a symlink to a directory
// inside the workspace still lists its entries (counts, start, legacy
// detection), while symlinks below it are not followed.
func TestSymlinkedDailyRootIsWalked(t *testing.T) {
	root := t.TempDir()
	ws := newWorkspace(root)
	real := filepath.Join(root, "journal")
	if err := os.MkdirAll(filepath.Join(real, "2026-01-01"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "2026-01-01", "a.md"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(ws.Vault, 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.SymlinkOrSkip(t, real, ws.Daily)
	testenv.SymlinkOrSkip(t, filepath.Join(real, "2026-01-01"), filepath.Join(real, "linked"))
	var got []string
	WalkDaily(ws.Daily, func(rel string) bool { got = append(got, rel); return true })
	if len(got) != 1 || got[0] != "2026-01-01/a.md" {
		t.Errorf("walkDaily = %q, want [2026-01-01/a.md]", got)
	}
	if n := ws.CountDailyLogs(); n != 1 {
		t.Errorf("countDailyLogs = %d, want 1", n)
	}
}
