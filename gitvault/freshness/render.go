package freshness

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-echoes/git-echoes/internal/mdescape"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// The renderings of the reports, shared by git echoes stale, the
// SessionStart hook and the MCP server.

// Why is one factual clause about a citation that is not fresh: "changed
// in 3 commits since this page, last 2026-11-28 'rotate keys'", "moved to
// X", "deleted in abc1234"; "" for a fresh citation.
func (r Result) Why() string {
	switch r.Verdict {
	case Drifted:
		n := "1 commit"
		if r.Count != 1 {
			n = strconv.Itoa(r.Count) + " commits"
		}
		s := "changed in " + n + " since this page"
		if len(r.Commits) > 0 {
			last := r.Commits[0]
			s += ", last " + last.Date.UTC().Format("2006-01-02") + " " + quoteSubject(last.Subject)
		}
		if r.NewPath != "" {
			s += ", now " + r.NewPath
		}
		return s
	case Moved:
		s := "moved to " + r.NewPath
		if r.NewStart != 0 {
			s += ":" + lineSpan(r.NewStart, r.NewEnd)
		}
		return s
	case Missing:
		if r.Note != "" {
			return r.Note
		}
		return "deleted"
	}
	if r.NewStart != 0 {
		return "now lines " + lineSpan(r.NewStart, r.NewEnd)
	}
	return ""
}

func lineSpan(a, b int) string {
	if a == b {
		return strconv.Itoa(a)
	}
	return strconv.Itoa(a) + "-" + strconv.Itoa(b)
}

// quoteSubject quotes a commit subject, bounded at 60 characters.
func quoteSubject(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return "'" + s + "'"
}

// Lines returns one factual line per citation that is drifted, moved or
// missing: "cites X, changed in 3 commits since this page, last ...".
func (r Report) Lines() []string {
	var out []string
	for _, c := range r.Citations {
		if c.Verdict == Fresh {
			continue
		}
		out = append(out, "cites "+c.Citation.String()+", "+c.Why())
	}
	return out
}

// Stale reports whether a verdict fails git echoes stale --strict.
func (v Verdict) Stale() bool { return v == Drifted || v == Missing }

// Counts tallies the reports by verdict.
func Counts(reps []Report) map[Verdict]int {
	m := map[Verdict]int{}
	for _, r := range reps {
		m[r.Verdict]++
	}
	return m
}

var verdictOrder = []Verdict{Fresh, Moved, Drifted, Missing, Uncited}

func isoDate(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// ReportJSON is one report as JSON.
func ReportJSON(r Report) pyjson.Value {
	anchor := pyjson.NewObj()
	if r.Anchor.WorkTree {
		anchor.Set("commit", pyjson.NullValue())
	} else {
		anchor.Set("commit", pyjson.Str(r.Anchor.Commit))
	}
	anchor.Set("date", pyjson.Str(isoDate(r.Anchor.Date))).
		Set("worktree", pyjson.Boolean(r.Anchor.WorkTree)).
		Set("verified", pyjson.Boolean(r.Anchor.Verified)).
		Set("shallow", pyjson.Boolean(r.Anchor.Shallow))
	cites := []pyjson.Value{}
	for _, c := range r.Citations {
		o := pyjson.NewObj().Set("cite", pyjson.Str(c.Citation.String())).
			Set("path", pyjson.Str(c.Path)).
			Set("from", pyjson.Str(c.From)).
			Set("verdict", pyjson.Str(string(c.Verdict)))
		if c.Start != 0 {
			o.Set("start", pyjson.Int(int64(c.Start))).Set("end", pyjson.Int(int64(c.End)))
		}
		if c.NewPath != "" {
			o.Set("newPath", pyjson.Str(c.NewPath))
		}
		if c.NewStart != 0 {
			o.Set("newStart", pyjson.Int(int64(c.NewStart))).Set("newEnd", pyjson.Int(int64(c.NewEnd)))
		}
		if c.Note != "" {
			o.Set("note", pyjson.Str(c.Note))
		}
		if why := c.Why(); why != "" {
			o.Set("why", pyjson.Str(why))
		}
		if c.Verdict == Drifted {
			commits := []pyjson.Value{}
			for _, k := range c.Commits {
				commits = append(commits, pyjson.ObjectValue(pyjson.NewObj().
					Set("commit", pyjson.Str(k.Hash)).Set("short", pyjson.Str(k.Short)).
					Set("subject", pyjson.Str(k.Subject)).Set("author", pyjson.Str(k.Author)).
					Set("date", pyjson.Str(isoDate(k.Date))).
					Set("added", pyjson.Int(int64(k.Added))).Set("removed", pyjson.Int(int64(k.Removed)))))
			}
			o.Set("count", pyjson.Int(int64(c.Count))).Set("commits", pyjson.Arr(commits...))
		}
		cites = append(cites, pyjson.ObjectValue(o))
	}
	invalid := []pyjson.Value{}
	for _, b := range r.Invalid {
		invalid = append(invalid, pyjson.ObjectValue(pyjson.NewObj().Set("entry", pyjson.Str(b.Entry)).
			Set("reason", pyjson.Str(b.Reason)).Set("line", pyjson.Int(int64(b.Line)))))
	}
	kind := "page"
	if r.Memory {
		kind = "memory"
	}
	return pyjson.ObjectValue(pyjson.NewObj().Set("path", pyjson.Str(r.Path)).Set("kind", pyjson.Str(kind)).
		Set("verdict", pyjson.Str(string(r.Verdict))).Set("anchor", pyjson.ObjectValue(anchor)).
		Set("citations", pyjson.Arr(cites...)).Set("invalidSources", pyjson.Arr(invalid...)))
}

// JSON renders a whole run: {"ok", "rev", "counts", "documents"}.
func JSON(target string, reps []Report) pyjson.Value {
	counts := pyjson.NewObj()
	m := Counts(reps)
	for _, v := range verdictOrder {
		counts.Set(string(v), pyjson.Int(int64(m[v])))
	}
	docs := make([]pyjson.Value, len(reps))
	for i, r := range reps {
		docs[i] = ReportJSON(r)
	}
	return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).Set("rev", pyjson.Str(target)).
		Set("counts", pyjson.ObjectValue(counts)).Set("documents", pyjson.Arr(docs...)))
}

func anchorText(a Anchor) string {
	switch {
	case a.WorkTree:
		return "work tree"
	case a.Verified:
		return "verified at " + short(a.Commit) + " " + a.Date.UTC().Format("2006-01-02")
	}
	s := short(a.Commit) + " " + a.Date.UTC().Format("2006-01-02")
	if a.Shallow {
		s += ", shallow boundary"
	}
	return s
}

// Text renders a run for a terminal: one line per cited document with its
// verdict and anchor, an indented line per citation that is not fresh,
// and a closing count line.
func Text(target string, reps []Report) string {
	// Appended to one buffer, not through fmt: a warm run of 1,000 pages
	// spent a third of its time in Fprintf and a growing Builder.
	var b strings.Builder
	buf := make([]byte, 0, 256*len(reps)+256)
	pad8 := func(v Verdict) {
		buf = append(buf, v...)
		for n := len(v); n < 8; n++ { // %-8s (verdicts are ASCII)
			buf = append(buf, ' ')
		}
	}
	uncited := 0
	for _, r := range reps {
		if r.Verdict == Uncited && len(r.Invalid) == 0 {
			uncited++
			continue
		}
		pad8(r.Verdict)
		buf = append(append(append(append(buf, ' '), r.Path...), " (anchor "...), anchorText(r.Anchor)...)
		buf = append(buf, ")\n"...)
		for _, c := range r.Citations {
			if c.Verdict == Fresh && c.NewStart == 0 {
				continue
			}
			buf = append(buf, "  "...)
			pad8(c.Verdict)
			buf = append(append(append(append(buf, ' '), c.Citation.String()...), ": "...), c.Why()...)
			buf = append(buf, '\n')
			if c.Verdict == Drifted {
				for _, k := range c.Commits {
					buf = append(append(append(buf, "           "...), k.Short...), ' ')
					buf = k.Date.UTC().AppendFormat(buf, "2006-01-02")
					buf = append(append(append(buf, ' '), quoteSubject(k.Subject)...), " (+"...)
					buf = strconv.AppendInt(buf, int64(k.Added), 10)
					buf = append(buf, " -"...)
					buf = strconv.AppendInt(buf, int64(k.Removed), 10)
					buf = append(append(append(buf, ") "...), k.Author...), '\n')
				}
				if c.Count > len(c.Commits) {
					buf = append(buf, "           ... "...)
					buf = strconv.AppendInt(buf, int64(c.Count-len(c.Commits)), 10)
					buf = append(buf, " more\n"...)
				}
			}
		}
		if len(r.Invalid) > 0 {
			b.Write(buf)
			buf = buf[:0]
		}
		for _, bad := range r.Invalid {
			fmt.Fprintf(&b, "  invalid  sources entry %q (line %d): %s\n", bad.Entry, bad.Line, bad.Reason)
		}
	}
	b.Write(buf)
	m := Counts(reps)
	fmt.Fprintf(&b, "%s at %s: %d fresh, %d moved, %d drifted, %d missing, %d uncited\n",
		documents(len(reps)), short(target), m[Fresh], m[Moved], m[Drifted], m[Missing], m[Uncited])
	return b.String()
}

// documents counts n documents in English: "1 document", "2 documents".
func documents(n int) string {
	if n == 1 {
		return "1 document"
	}
	return strconv.Itoa(n) + " documents"
}

// Markdown renders a run as a table of the documents that are not fresh
// (for a pull-request comment), then the count line.
func Markdown(target string, reps []Report) string {
	var b strings.Builder
	b.WriteString("### Memory freshness at `" + short(target) + "`\n\n")
	rows := 0
	for _, r := range reps {
		if !r.Verdict.Worse(Fresh) {
			continue
		}
		if rows == 0 {
			b.WriteString("| Document | Verdict | Why |\n|---|---|---|\n")
		}
		rows++
		// A path, a commit subject and an author are anyone's text: in a
		// pull-request comment they must not break the table, open
		// markup or mention anyone (mdescape).
		fmt.Fprintf(&b, "| <code>%s</code> | %s | %s |\n", mdescape.Escape(r.Path), r.Verdict, mdescape.Escape(strings.Join(r.Lines(), "; ")))
	}
	if rows == 0 {
		b.WriteString("Every cited document is fresh.\n")
	}
	m := Counts(reps)
	fmt.Fprintf(&b, "\n%s: %d fresh, %d moved, %d drifted, %d missing, %d uncited\n",
		documents(len(reps)), m[Fresh], m[Moved], m[Drifted], m[Missing], m[Uncited])
	return b.String()
}
