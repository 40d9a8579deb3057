package freshness

import (
	"strconv"
	"time"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// PrettyJSON is pyjson.Pretty(JSON(target, reps)), byte for byte, written
// straight into one buffer: a warm git echoes stale --format json spent
// most of its time building the 3.7 MB document as a tree of values (a
// big.Int per number, an ordered map per object) and then walking it.
// The layout is json.dumps(indent=2, ensure_ascii=False) (pyjson.Pretty,
// echoes-conformance §2.8); TestPrettyJSONMatchesPyjson keeps the two
// identical.
func PrettyJSON(target string, reps []Report) []byte {
	w := jsonWriter{b: make([]byte, 0, 4096+len(reps)*4096)}
	w.open('{')
	w.key("ok")
	w.raw("true")
	w.key("rev")
	w.str(target)
	w.key("counts")
	m := Counts(reps)
	w.open('{')
	for _, v := range verdictOrder {
		w.key(string(v))
		w.int(m[v])
	}
	w.close('}')
	w.key("documents")
	if len(reps) == 0 {
		w.raw("[]")
	} else {
		w.open('[')
		for i := range reps {
			w.elem()
			w.report(&reps[i])
		}
		w.close(']')
	}
	w.close('}')
	w.b = append(w.b, '\n')
	return w.b
}

// jsonWriter appends pretty JSON: first marks a container with no member
// written yet at each open depth.
type jsonWriter struct {
	b     []byte
	depth int
	first []bool
}

func (w *jsonWriter) indent() {
	w.b = append(w.b, '\n')
	for i := 0; i < w.depth; i++ {
		w.b = append(w.b, ' ', ' ')
	}
}

func (w *jsonWriter) open(c byte) {
	w.b = append(w.b, c)
	w.depth++
	w.first = append(w.first, true)
}

func (w *jsonWriter) close(c byte) {
	w.depth--
	w.first = w.first[:len(w.first)-1]
	w.indent()
	w.b = append(w.b, c)
}

// elem starts a member: the comma after the previous one, the indent.
func (w *jsonWriter) elem() {
	top := len(w.first) - 1
	if !w.first[top] {
		w.b = append(w.b, ',')
	}
	w.first[top] = false
	w.indent()
}

func (w *jsonWriter) key(k string) {
	w.elem()
	w.str(k)
	w.b = append(w.b, ':', ' ')
}

func (w *jsonWriter) raw(s string) { w.b = append(w.b, s...) }
func (w *jsonWriter) int(n int)    { w.b = strconv.AppendInt(w.b, int64(n), 10) }
func (w *jsonWriter) bool(v bool) {
	if v {
		w.raw("true")
	} else {
		w.raw("false")
	}
}

// str appends s quoted as json.dumps(s, ensure_ascii=False) does.
func (w *jsonWriter) str(s string) { w.b = pyjson.AppendQuote(w.b, s) }

func (w *jsonWriter) date(t time.Time) {
	w.b = append(w.b, '"')
	w.b = t.UTC().AppendFormat(w.b, time.RFC3339)
	w.b = append(w.b, '"')
}

// report writes one report as ReportJSON builds it.
func (w *jsonWriter) report(r *Report) {
	w.open('{')
	w.key("path")
	w.str(r.Path)
	w.key("kind")
	if r.Memory {
		w.str("memory")
	} else {
		w.str("page")
	}
	w.key("verdict")
	w.str(string(r.Verdict))
	w.key("anchor")
	w.open('{')
	w.key("commit")
	if r.Anchor.WorkTree {
		w.raw("null")
	} else {
		w.str(r.Anchor.Commit)
	}
	w.key("date")
	w.date(r.Anchor.Date)
	w.key("worktree")
	w.bool(r.Anchor.WorkTree)
	w.key("verified")
	w.bool(r.Anchor.Verified)
	w.key("shallow")
	w.bool(r.Anchor.Shallow)
	w.close('}')
	w.key("citations")
	if len(r.Citations) == 0 {
		w.raw("[]")
	} else {
		w.open('[')
		for i := range r.Citations {
			w.elem()
			w.citation(&r.Citations[i])
		}
		w.close(']')
	}
	w.key("invalidSources")
	if len(r.Invalid) == 0 {
		w.raw("[]")
	} else {
		w.open('[')
		for _, b := range r.Invalid {
			w.elem()
			w.open('{')
			w.key("entry")
			w.str(b.Entry)
			w.key("reason")
			w.str(b.Reason)
			w.key("line")
			w.int(b.Line)
			w.close('}')
		}
		w.close(']')
	}
	w.close('}')
}

func (w *jsonWriter) citation(c *Result) {
	w.open('{')
	w.key("cite")
	w.str(c.Citation.String())
	w.key("path")
	w.str(c.Path)
	w.key("from")
	w.str(c.From)
	w.key("verdict")
	w.str(string(c.Verdict))
	if c.Start != 0 {
		w.key("start")
		w.int(c.Start)
		w.key("end")
		w.int(c.End)
	}
	if c.NewPath != "" {
		w.key("newPath")
		w.str(c.NewPath)
	}
	if c.NewStart != 0 {
		w.key("newStart")
		w.int(c.NewStart)
		w.key("newEnd")
		w.int(c.NewEnd)
	}
	if c.Note != "" {
		w.key("note")
		w.str(c.Note)
	}
	if why := c.Why(); why != "" {
		w.key("why")
		w.str(why)
	}
	if c.Verdict == Drifted {
		w.key("count")
		w.int(c.Count)
		w.key("commits")
		if len(c.Commits) == 0 {
			w.raw("[]")
		} else {
			w.open('[')
			for _, k := range c.Commits {
				w.elem()
				w.open('{')
				w.key("commit")
				w.str(k.Hash)
				w.key("short")
				w.str(k.Short)
				w.key("subject")
				w.str(k.Subject)
				w.key("author")
				w.str(k.Author)
				w.key("date")
				w.date(k.Date)
				w.key("added")
				w.int(k.Added)
				w.key("removed")
				w.int(k.Removed)
				w.close('}')
			}
			w.close(']')
		}
	}
	w.close('}')
}
