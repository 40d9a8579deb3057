package freshness

import (
	"strings"
	"testing"
	"time"
)

// TestMarkdownEscapesUntrustedText: stale --format markdown goes into a
// pull-request comment (scripts/forge/github.sh, the GitLab template),
// and a cited path, a commit subject and an author are written by any
// contributor. None of them may mention anyone, open HTML or break the
// table: each row keeps exactly its four cell separators.
func TestMarkdownEscapesUntrustedText(t *testing.T) {
	when := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	reps := []Report{{
		Path:    "EchoesVault/pages/a|b_`x`.md",
		Verdict: Drifted,
		Citations: []Result{{
			Citation: Citation{Path: "src/<b>|x.go", From: "sources"},
			Verdict:  Drifted,
			Commits: []CommitRef{{Short: "0123456", Subject: "ping @octo-org/security <img src=x> | [x](javascript:1)",
				Author: "Mallory <m@example.com>", Date: when, Added: 1, Removed: 1}},
			Count: 1,
		}},
	}, {Path: "EchoesVault/pages/fresh.md", Verdict: Fresh}}
	out := Markdown("0123456789abcdef0123456789abcdef01234567", reps)
	for _, bad := range []string{"@", "<img", "<b>", "[x]("} {
		if strings.Contains(out, bad) {
			t.Errorf("the Markdown holds %q unescaped:\n%s", bad, out)
		}
	}
	var rows int
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "| <code>") {
			continue
		}
		rows++
		if n := strings.Count(l, "|") - strings.Count(l, `\|`); n != 4 {
			t.Errorf("row with %d cell separators, want 4: %s", n, l)
		}
	}
	if rows != 1 {
		t.Errorf("%d rows, want 1 (the fresh page has none):\n%s", rows, out)
	}
	if !strings.HasSuffix(out, "\n2 documents: 1 fresh, 0 moved, 1 drifted, 0 missing, 0 uncited\n") {
		t.Errorf("count line:\n%s", out)
	}
	if got := Markdown("0123456789abcdef0123456789abcdef01234567", reps[1:]); !strings.HasSuffix(got, "\n1 document: 1 fresh, 0 moved, 0 drifted, 0 missing, 0 uncited\n") {
		t.Errorf("one document:\n%s", got)
	}
}
