// Package manpage writes manual pages in the man(7) macros from plain help
// texts, so that a command's manual and its --help are the same words
// (issue 8: "man page = help text").
//
// A help text is read as the git-echoes texts are written:
//
//   - it may open with usage lines ("usage: ..." and indented
//     continuation lines), which become a synopsis;
//   - blank lines separate blocks; in a block, lines that start at the
//     margin are prose, filled as a paragraph;
//   - indented lines form a definition list when each entry is a term,
//     two or more spaces, and its description (which may also start on
//     the next, deeper-indented line), and are kept verbatim otherwise
//     (commands to type, synopses).
//
// The output avoids every construct a formatter renders differently:
// hyphens, quotes, tildes and carets are escaped to their ASCII glyphs, so
// that a copied command works, and hyphenation and justification are off.
package manpage

import (
	"strings"
)

// Page is one manual page.
type Page struct {
	Name     string // "git-echoes-check"
	Section  string // "1"
	Date     string // of the last change to the texts, ISO "2026-12-01" (not escaped)
	Source   string // left footer, "git-echoes"
	Manual   string // centre header, "Git Echoes Manual"
	Summary  string // the NAME line after "name \-"
	Synopsis []string
	Sections []Section
}

// Section is one .SH section; Body is roff (see Text).
type Section struct {
	Heading string
	Body    string
}

// Render returns the page's roff source: the same page always gives the
// same bytes (no build date).
func (p *Page) Render() []byte {
	var b strings.Builder
	b.WriteString(`.\" Generated from the git-echoes help texts; do not edit.` + "\n")
	b.WriteString(".TH " + quoteArg(strings.ToUpper(p.Name)) + " " + p.Section + ` "` + p.Date + `" ` + quoteArg(p.Source) + " " + quoteArg(p.Manual) + "\n")
	b.WriteString(".nh\n.ad l\n")
	b.WriteString(".SH NAME\n" + Escape(p.Name) + ` \- ` + Escape(p.Summary) + "\n")
	if len(p.Synopsis) > 0 {
		b.WriteString(".SH SYNOPSIS\n" + Synopsis(p.Synopsis))
	}
	for _, s := range p.Sections {
		b.WriteString(".SH " + quoteArg(s.Heading) + "\n" + strings.TrimPrefix(s.Body, ".PP\n"))
	}
	return []byte(b.String())
}

// Subsection is an .SS heading and its body; a heading already starts a
// paragraph, so the body's first .PP is dropped.
func Subsection(heading, body string) string {
	return ".SS " + quoteArg(heading) + "\n" + strings.TrimPrefix(body, ".PP\n")
}

// quoteArg quotes a macro argument that contains a space.
func quoteArg(s string) string {
	s = Escape(s)
	if strings.ContainsAny(s, " \t") {
		return `"` + s + `"`
	}
	return s
}

// Escape makes text safe as a roff text line or macro argument and keeps
// every character what it is when rendered: "-" is the ASCII hyphen-minus
// a shell needs (\-), quotes and the grave accent are not curled, "~" and
// "^" are not turned into modifier letters.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\e`)
		case '-':
			b.WriteString(`\-`)
		case '\'':
			b.WriteString(`\(aq`)
		case '`':
			b.WriteString(`\(ga`)
		case '~':
			b.WriteString(`\(ti`)
		case '^':
			b.WriteString(`\(ha`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// line makes one escaped text line; a leading "." or "'" would make it a
// request, so it is guarded with the zero-width \&.
func line(s string) string {
	s = Escape(s)
	if strings.HasPrefix(s, ".") {
		s = `\&` + s
	}
	return s + "\n"
}

// SplitUsage separates the usage lines at the top of a help text (without
// "usage: ") from the rest. An indented line that starts with a command
// word (another form: "git echoes help --install-man DIR") is a usage line
// of its own; one that starts with an option or operand continues the line
// above it, which the help text wrapped to fit 80 columns (issue 17):
// Synopsis wraps the joined line again for the page's own width.
func SplitUsage(help string) (usage []string, rest string) {
	lines := strings.Split(help, "\n")
	i := 0
	for ; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l)
		switch {
		case i == 0 && (strings.HasPrefix(l, "usage: ") || strings.HasPrefix(l, "Usage: ")):
			usage = append(usage, strings.TrimSpace(l[len("usage: "):]))
		case i > 0 && len(usage) > 0 && strings.HasPrefix(l, " ") && t != "" && !isCommandWord(strings.Fields(t)[0]):
			usage[len(usage)-1] += " " + t
		case i > 0 && len(usage) > 0 && strings.HasPrefix(l, " ") && t != "":
			usage = append(usage, t)
		default:
			return usage, strings.Join(lines[i:], "\n")
		}
	}
	return usage, ""
}

// Synopsis renders usage lines, the command words in bold.
func Synopsis(usage []string) string {
	var b strings.Builder
	b.WriteString(".nf\n")
	for _, u := range usage {
		fields := strings.Fields(u)
		n := 0
		for n < len(fields) && isCommandWord(fields[n]) {
			n++
		}
		var l string
		if n > 0 {
			cmd := strings.Join(fields[:n], " ")
			l = `\fB` + Escape(cmd) + `\fR`
			// Wrapped at whole option groups, the continuation lines
			// under the first operand, so that the rendered line fits
			// 80 columns (issue 17: find's was 229 characters).
			width := len(cmd)
			for _, g := range synopsisGroups(fields[n:]) {
				if width > len(cmd) && width+1+len(g) > synopsisWidth {
					l += "\n" + strings.Repeat(" ", len(cmd)) // then " " + g
					width = len(cmd)
				}
				l += " " + Escape(g)
				width += 1 + len(g)
			}
		} else {
			l = Escape(u)
		}
		if strings.HasPrefix(l, ".") {
			l = `\&` + l
		}
		b.WriteString(l + "\n")
	}
	b.WriteString(".fi\n")
	return b.String()
}

// synopsisWidth is the text width of a SYNOPSIS line: 80 columns less
// man's default indent of 7.
const synopsisWidth = 80 - 7

// synopsisGroups joins the operand fields of a usage line into the groups
// a line may break between: a bracketed or braced group stays whole.
func synopsisGroups(fields []string) []string {
	var groups []string
	depth := 0
	for _, f := range fields {
		if depth > 0 {
			groups[len(groups)-1] += " " + f
		} else {
			groups = append(groups, f)
		}
		depth += strings.Count(f, "[") + strings.Count(f, "{") + strings.Count(f, "(") -
			strings.Count(f, "]") - strings.Count(f, "}") - strings.Count(f, ")")
		if depth < 0 {
			depth = 0
		}
	}
	return groups
}

// isCommandWord: a literal word of a synopsis (git, echoes, merge-driver),
// as opposed to an option, a placeholder or a choice.
func isCommandWord(w string) bool {
	for i, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' && i > 0) {
			return false
		}
	}
	return w != ""
}

// Text converts the body of a help text (after SplitUsage) to roff.
func Text(help string) string {
	var b strings.Builder
	for _, block := range splitBlocks(help) {
		for _, run := range splitRuns(block) {
			if !indented(run[0]) {
				b.WriteString(".PP\n")
				for _, l := range run {
					b.WriteString(line(strings.TrimSpace(l)))
				}
				continue
			}
			if entries, ok := definitions(run); ok {
				// A list of one-line descriptions (an overview) is set
				// compact; longer descriptions keep a blank line apart.
				compact := true
				for _, e := range entries {
					compact = compact && len(e.desc) == 1
				}
				for i, e := range entries {
					if compact && i == 1 {
						// After the first entry, which keeps its space
						// from the text above.
						b.WriteString(".PD 0\n")
					}
					b.WriteString(".TP\n" + `\fB` + Escape(e.term) + `\fR` + "\n")
					for _, l := range e.desc {
						b.WriteString(line(l))
					}
				}
				if compact && len(entries) > 1 {
					b.WriteString(".PD\n")
				}
				continue
			}
			b.WriteString(".PP\n.RS 4\n.nf\n")
			margin := indentOf(run[0])
			for _, l := range run {
				if indentOf(l) < margin {
					margin = indentOf(l)
				}
			}
			for _, l := range run {
				b.WriteString(line(l[margin:]))
			}
			b.WriteString(".fi\n.RE\n")
		}
	}
	return b.String()
}

func indented(l string) bool { return strings.HasPrefix(l, " ") }

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// splitBlocks splits at blank lines.
func splitBlocks(text string) [][]string {
	var blocks [][]string
	var cur []string
	for _, l := range strings.Split(strings.ReplaceAll(text, "\t", "        "), "\n") {
		if strings.TrimSpace(l) == "" {
			if cur != nil {
				blocks = append(blocks, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, strings.TrimRight(l, " "))
	}
	if cur != nil {
		blocks = append(blocks, cur)
	}
	return blocks
}

// splitRuns splits a block into runs of prose and of indented lines.
func splitRuns(block []string) [][]string {
	var runs [][]string
	for i, l := range block {
		if i == 0 || indented(l) != indented(block[i-1]) {
			runs = append(runs, nil)
		}
		runs[len(runs)-1] = append(runs[len(runs)-1], l)
	}
	return runs
}

type entry struct {
	term string
	desc []string
}

// definitions reads an indented run as a definition list, or reports that
// it is not one.
func definitions(run []string) ([]entry, bool) {
	base := indentOf(run[0])
	var entries []entry
	for _, l := range run {
		ind := indentOf(l)
		text := l[ind:]
		switch {
		case ind == base:
			e := entry{term: text}
			if gap := strings.Index(text, "  "); gap > 0 {
				e.term = text[:gap]
				e.desc = []string{strings.TrimSpace(text[gap:])}
			}
			entries = append(entries, e)
		case ind > base && len(entries) > 0:
			last := &entries[len(entries)-1]
			last.desc = append(last.desc, text)
		default:
			return nil, false
		}
	}
	for _, e := range entries {
		if len(e.desc) == 0 {
			return nil, false
		}
	}
	return entries, true
}
