package freshness

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// TestPrettyJSONMatchesPyjson: the direct writer gives the bytes of
// pyjson.Pretty(JSON(...)) on reports with every optional member present
// and absent, empty lists, the work-tree anchor's null, and strings with
// quotes, backslashes, control characters and non-ASCII text.
func TestPrettyJSONMatchesPyjson(t *testing.T) {
	rnd := rand.New(rand.NewPCG(18, 3))
	strs := []string{"", "a.go", `q"uote`, `back\slash`, "tab\tnl\ncr\r\b\f\x01\x1f", "é ü 日本 \u2028", "\x7f", "EchoesVault/pages/x.md"}
	s := func() string { return strs[rnd.IntN(len(strs))] }
	verdicts := []Verdict{Fresh, Moved, Drifted, Missing, Uncited}
	when := func() time.Time {
		if rnd.IntN(5) == 0 {
			return time.Time{}
		}
		return time.Unix(1700000000+rnd.Int64N(1e8), int64(rnd.IntN(1e9))).In(time.FixedZone("x", 3600*rnd.IntN(5)))
	}
	for round := 0; round < 200; round++ {
		var reps []Report
		for n := rnd.IntN(4); n > 0; n-- {
			r := Report{Path: s(), Memory: rnd.IntN(2) == 0, Verdict: verdicts[rnd.IntN(len(verdicts))],
				Anchor: Anchor{Commit: s(), Date: when(), WorkTree: rnd.IntN(3) == 0, Verified: rnd.IntN(2) == 0, Shallow: rnd.IntN(2) == 0}}
			for c := rnd.IntN(4); c > 0; c-- {
				res := Result{Citation: Citation{Path: s(), From: s()}, Verdict: verdicts[rnd.IntN(4)], NewPath: s(), Note: s(), Count: rnd.IntN(30)}
				if rnd.IntN(2) == 0 {
					res.Start, res.End = 1+rnd.IntN(9), 10+rnd.IntN(9)
				}
				if rnd.IntN(2) == 0 {
					res.NewStart, res.NewEnd = 1+rnd.IntN(9), 10+rnd.IntN(9)
				}
				for k := rnd.IntN(3); k > 0; k-- {
					res.Commits = append(res.Commits, CommitRef{Hash: s(), Short: s(), Subject: s(), Author: s(), Date: when(), Added: rnd.IntN(100), Removed: rnd.IntN(100)})
				}
				r.Citations = append(r.Citations, res)
			}
			for k := rnd.IntN(3); k > 0; k-- {
				r.Invalid = append(r.Invalid, Invalid{Entry: s(), Reason: s(), Line: rnd.IntN(50)})
			}
			reps = append(reps, r)
		}
		target := s()
		if got, want := Text(target, reps), textFmt(target, reps); got != want {
			t.Fatalf("round %d: Text differs from its fmt rendering\ngot:\n%s\nwant:\n%s", round, got, want)
		}
		want := pyjson.Pretty(JSON(target, reps))
		if got := string(PrettyJSON(target, reps)); got != want {
			t.Fatalf("round %d: PrettyJSON differs from pyjson.Pretty(JSON)\ngot:\n%s\nwant:\n%s", round, got, want)
		}
	}
}

// textFmt is Text as it was written with fmt, the reference for its
// appended rendering.
func textFmt(target string, reps []Report) string {
	var b strings.Builder
	for _, r := range reps {
		if r.Verdict == Uncited && len(r.Invalid) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%-8s %s (anchor %s)\n", r.Verdict, r.Path, anchorText(r.Anchor))
		for _, c := range r.Citations {
			if c.Verdict == Fresh && c.NewStart == 0 {
				continue
			}
			fmt.Fprintf(&b, "  %-8s %s: %s\n", c.Verdict, c.Citation.String(), c.Why())
			if c.Verdict == Drifted {
				for _, k := range c.Commits {
					fmt.Fprintf(&b, "           %s %s %s (+%d -%d) %s\n", k.Short, k.Date.UTC().Format("2006-01-02"), quoteSubject(k.Subject), k.Added, k.Removed, k.Author)
				}
				if c.Count > len(c.Commits) {
					fmt.Fprintf(&b, "           ... %d more\n", c.Count-len(c.Commits))
				}
			}
		}
		for _, bad := range r.Invalid {
			fmt.Fprintf(&b, "  invalid  sources entry %q (line %d): %s\n", bad.Entry, bad.Line, bad.Reason)
		}
	}
	m := Counts(reps)
	fmt.Fprintf(&b, "%s at %s: %d fresh, %d moved, %d drifted, %d missing, %d uncited\n",
		documents(len(reps)), short(target), m[Fresh], m[Moved], m[Drifted], m[Missing], m[Uncited])
	return b.String()
}
