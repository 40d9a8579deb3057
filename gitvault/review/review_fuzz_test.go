package review

import (
	"errors"
	"github.com/git-echoes/git-echoes/gitvault"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseRevRange: no panic; errors are *Error; an accepted range names
// non-empty revisions without "..", and exactly one mode.
func FuzzParseRevRange(f *testing.F) {
	for _, s := range []string{"", "main", "a..b", "a...b", "..b", "a..", "...", "a....b", "a b", "--x", "a..b..c"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, joined string, worktree bool) {
		var args []string
		if joined != "" {
			args = strings.Split(joined, " ")
		}
		rr, err := ParseRevRange(args, worktree)
		if err != nil {
			var e *gitvault.Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if rr.Upstream {
			if len(args) != 0 || rr.A != "" || rr.B != "" {
				t.Fatalf("upstream range with revisions: %+v", rr)
			}
			return
		}
		if rr.A == "" || strings.Contains(rr.A, "..") {
			t.Fatalf("bad A in %+v from %q", rr, args)
		}
		if rr.WorkTree != (rr.B == "") || (rr.WorkTree && rr.MergeBase) {
			t.Fatalf("inconsistent range %+v from %q", rr, args)
		}
		if !rr.WorkTree && strings.Contains(rr.B, "..") {
			t.Fatalf("bad B in %+v from %q", rr, args)
		}
	})
}

func TestParseRevRange(t *testing.T) {
	for _, c := range []struct {
		args     []string
		worktree bool
		want     RevRange
	}{
		{nil, false, RevRange{Upstream: true}},
		{nil, true, RevRange{Upstream: true, WorkTree: true}},
		{[]string{"v1"}, false, RevRange{A: "v1", B: "HEAD"}},
		{[]string{"v1"}, true, RevRange{A: "v1", WorkTree: true}},
		{[]string{"a", "b"}, false, RevRange{A: "a", B: "b"}},
		{[]string{"a..b"}, false, RevRange{A: "a", B: "b"}},
		{[]string{"a.."}, false, RevRange{A: "a", B: "HEAD"}},
		{[]string{"..b"}, false, RevRange{A: "HEAD", B: "b"}},
		{[]string{"a...b"}, false, RevRange{A: "a", B: "b", MergeBase: true}},
		{[]string{"...b"}, false, RevRange{A: "HEAD", B: "b", MergeBase: true}},
		{[]string{"a..."}, false, RevRange{A: "a", B: "HEAD", MergeBase: true}},
	} {
		got, err := ParseRevRange(c.args, c.worktree)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseRevRange(%q, %v) = %+v, %v; want %+v", c.args, c.worktree, got, err, c.want)
		}
	}
	for _, bad := range [][]string{{".."}, {"a..b..c"}, {"a", "b", "c"}, {"a..b", "c"}, {""}, {"-p"}, {"a\nb"}} {
		if _, err := ParseRevRange(bad, false); err == nil {
			t.Errorf("ParseRevRange(%q) accepted", bad)
		}
	}
	if _, err := ParseRevRange([]string{"a", "b"}, true); err == nil {
		t.Error("--worktree with two revisions accepted")
	}
	if _, err := ParseRevRange([]string{"a..b"}, true); err == nil {
		t.Error("--worktree with a range accepted")
	}
}

// FuzzParseTrailers: no panic; every trailer has a token key and a
// single-line value.
func FuzzParseTrailers(f *testing.F) {
	f.Add("subject\n\nbody\n\nAgent: claude\nCo-authored-by: A <a@x>\n")
	f.Add("subject\n\nAgent: x\n  continued\n")
	f.Add("Agent: only subject\n")
	f.Add("s\r\n\r\nKey: v\r\n")
	f.Fuzz(func(t *testing.T, msg string) {
		for _, tr := range ParseTrailers(msg) {
			if !isTrailerToken(tr.Key) || strings.ContainsAny(tr.Value, "\n") {
				t.Fatalf("bad trailer %+v from %q", tr, msg)
			}
		}
	})
}

func TestParseTrailers(t *testing.T) {
	got := ParseTrailers("Teach auth\n\nLonger body.\n\nAgent: claude-code\nCo-authored-by: Claude <noreply@anthropic.com>\nSigned-off-by: X\n  Y\n")
	want := []Trailer{{"Agent", "claude-code"}, {"Co-authored-by", "Claude <noreply@anthropic.com>"}, {"Signed-off-by", "X Y"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	for _, msg := range []string{"Agent: subject only\n", "s\n\nnot a trailer line\nAgent: x\n", "s\n\n  Agent: x\n"} {
		if got := ParseTrailers(msg); got != nil {
			t.Errorf("ParseTrailers(%q) = %+v, want none", msg, got)
		}
	}
	if coAuthorName("Claude <noreply@anthropic.com>") != "Claude" {
		t.Error("co-author name")
	}
}
