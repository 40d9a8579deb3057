package find

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// Formats of Render.
var Formats = []string{"json", "text", "markdown"}

// Render renders the answer in format (json, text or markdown). With
// budget > 0 the whole answer is at most budget characters (code points):
// whole hits are dropped from the end, and the answer says how many were
// left out. A budget too small for the answer without any hit is a usage
// error.
func (r *Result) Render(format string, budget int) (string, error) {
	var render func(hits []Hit, omitted int) string
	switch format {
	case "json":
		render = func(h []Hit, o int) string { return pyjson.Pretty(r.json(h, o)) }
	case "text":
		render = func(h []Hit, o int) string { return r.text(h, o, false) }
	case "markdown":
		render = func(h []Hit, o int) string { return r.text(h, o, true) }
	default:
		return "", qerr("--format must be json, text or markdown, not " + quote(format) + ".")
	}
	out := render(r.Hits, 0)
	if budget <= 0 || utf8.RuneCountInString(out) <= budget {
		return out, nil
	}
	for k := len(r.Hits) - 1; k >= 0; k-- {
		out = render(r.Hits[:k], len(r.Hits)-k)
		if utf8.RuneCountInString(out) <= budget {
			return out, nil
		}
	}
	return "", qerr("--budget " + strconv.Itoa(budget) + " is too small for any answer (this one needs " +
		strconv.Itoa(utf8.RuneCountInString(out)) + " characters without hits).")
}

func (r *Result) json(hits []Hit, omitted int) pyjson.Value {
	hv := make([]pyjson.Value, len(hits))
	for i, h := range hits {
		o := pyjson.NewObj().Set("source", pyjson.Str(h.Source)).Set("file", pyjson.Str(h.File))
		if h.Source == SourceMemory {
			o.Set("id", pyjson.Str(h.ID))
		}
		o.Set("score", pyjson.Float(h.Score)).Set("title", pyjson.Str(h.Title))
		switch h.Source {
		case SourcePage:
			o.Set("summary", pyjson.Str(h.Summary)).Set("type", pyjson.Str(h.Type)).
				Set("stack", pyjson.Strs(nonNil(h.Stack))).Set("status", pyjson.Str(h.Status)).
				Set("deprecated", pyjson.Boolean(h.Deprecated))
			if h.Deprecated {
				o.Set("replacedBy", pyjson.Strs(nonNil(h.ReplacedBy)))
			}
		case SourceMemory:
			o.Set("kind", pyjson.Str(h.Kind)).Set("scope", pyjson.Str(h.Scope)).
				Set("status", pyjson.Str(h.Status)).Set("tags", pyjson.Strs(nonNil(h.Tags)))
		}
		lines := make([]pyjson.Value, len(h.Lines))
		for j, l := range h.Lines {
			lines[j] = pyjson.ObjectValue(pyjson.NewObj().Set("line", pyjson.Int(int64(l.N))).Set("text", pyjson.Str(l.Text)))
		}
		o.Set("lines", pyjson.Arr(lines...))
		hv[i] = pyjson.ObjectValue(o)
	}
	sk := make([]pyjson.Value, len(r.Skipped))
	for i, s := range r.Skipped {
		sk[i] = pyjson.ObjectValue(pyjson.NewObj().Set("file", pyjson.Str(s.File)).Set("error", pyjson.Str(s.Error)))
	}
	return pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
		Set("query", pyjson.Str(r.Query)).
		Set("hits", pyjson.Arr(hv...)).
		Set("more", pyjson.Boolean(r.More)).
		Set("omitted", pyjson.Int(int64(omitted))).
		Set("skippedPages", pyjson.Arr(sk...)).
		Set("memoryDiagnostics", pyjson.ObjectValue(pyjson.NewObj().
			Set("invalidFileCount", pyjson.Int(int64(r.MemoryInvalid))).
			Set("truncated", pyjson.Boolean(r.MemoryTruncated)))))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// text renders the plain or Markdown answer: one block per hit.
func (r *Result) text(hits []Hit, omitted int, md bool) string {
	var b strings.Builder
	score := func(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) }
	if md {
		b.WriteString("## find: " + r.Query + "\n\n")
	}
	if len(hits) == 0 && omitted == 0 {
		b.WriteString("No matches.\n")
	}
	for i, h := range hits {
		name := h.File
		if h.Source == SourceMemory {
			name = h.ID + " (" + h.File + ")"
		}
		var meta []string
		switch h.Source {
		case SourcePage:
			meta = []string{h.Type, strings.Join(h.Stack, ", "), h.Status}
		case SourceMemory:
			meta = []string{h.Scope, h.Kind, h.Status}
			if len(h.Tags) > 0 {
				meta = append(meta, "tags: "+strings.Join(h.Tags, ", "))
			}
		case SourceDaily:
			meta = []string{"daily"}
		}
		if md {
			b.WriteString(strconv.Itoa(i+1) + ". `" + name + "` (score " + score(h.Score) + "; " + strings.Join(meta, " · ") + ")\n")
		} else {
			b.WriteString(name + "  score " + score(h.Score) + "  [" + strings.Join(meta, " · ") + "]\n")
		}
		ind := "  "
		if md {
			ind = "   "
		}
		if h.Deprecated {
			note := "DEPRECATED"
			if len(h.ReplacedBy) > 0 {
				note += ": replaced by " + strings.Join(h.ReplacedBy, ", ")
			}
			b.WriteString(ind + note + "\n")
		}
		if h.Title != "" {
			b.WriteString(ind + "title: " + h.Title + "\n")
		}
		if h.Summary != "" {
			b.WriteString(ind + "summary: " + h.Summary + "\n")
		}
		for _, l := range h.Lines {
			if md {
				b.WriteString(ind + "- line " + strconv.Itoa(l.N) + ": " + l.Text + "\n")
			} else {
				b.WriteString(ind + strconv.Itoa(l.N) + ": " + l.Text + "\n")
			}
		}
		if md {
			b.WriteString("\n")
		}
	}
	if omitted > 0 {
		b.WriteString("(" + strconv.Itoa(omitted) + " more hit(s) left out to stay within the budget)\n")
	}
	if r.More {
		b.WriteString("(more documents match: raise --limit or narrow the query)\n")
	}
	for _, s := range r.Skipped {
		b.WriteString("skipped (does not parse): " + s.File + ": " + s.Error + "\n")
	}
	if r.MemoryInvalid > 0 || r.MemoryTruncated {
		b.WriteString("memory scan: " + strconv.Itoa(r.MemoryInvalid) + " invalid file(s)")
		if r.MemoryTruncated {
			b.WriteString(", truncated at its budget")
		}
		b.WriteString("\n")
	}
	return b.String()
}
