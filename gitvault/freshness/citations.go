// Package freshness computes whether project memory still describes the
// code it cites (issue 18): the citations of a knowledge page or an ECC
// memory, the anchor commit the memory was written against, and one
// verdict per citation (fresh, drifted, moved, missing) read from Git
// history with the repository's own object and commit-graph readers
// (internal/gitrepo). It never writes the vault; the commands in
// cmd/git-echoes and the other front-ends render its reports.
package freshness

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/git-echoes/git-echoes/internal/frontmatter"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// MaxSources bounds the frontmatter sources: list. A longer list is not a
// list of citations (issue 18, "Bad input") but one source-invalid finding:
// a page citing more than 64 places is an index, not a claim about code,
// and the bound keeps a hostile page from costing one history walk per
// entry.
const MaxSources = 64

// MaxImplicit bounds the body citations read from one page or memory
// (code spans and links that name a tracked path), for the same reason.
const MaxImplicit = 256

// MaxLine bounds a cited line number; a larger one is a bad entry.
const MaxLine = 10_000_000

// Citation is one place in the repository a page or memory cites.
type Citation struct {
	Path  string // repository-relative, slash-separated, no trailing slash
	Start int    // first cited line (1-based); 0 for the whole file or directory
	End   int    // last cited line; 0 with Start
	From  string // "sources" (frontmatter) or "body" (a code span or link)
}

// String renders the citation as it is written: path, path:LINE or
// path:START-END.
func (c Citation) String() string {
	switch {
	case c.Start == 0:
		return c.Path
	case c.Start == c.End:
		return c.Path + ":" + strconv.Itoa(c.Start)
	}
	return c.Path + ":" + strconv.Itoa(c.Start) + "-" + strconv.Itoa(c.End)
}

// Invalid is one sources: entry that is not a citation (a source-invalid
// finding of the gate, a warning: the page stays valid for the protocol).
type Invalid struct {
	Entry  string // the entry as written ("" for the whole list)
	Reason string
	Line   int // 1-based line of the page
}

// Sources reads the optional sources: frontmatter field of a page. The
// protocol allows additional frontmatter fields and the index ignores
// them (echoes-conformance §9 step 6), so this reads the
// field without changing what makes the page valid: a page that the
// frontmatter scanner refuses has no citations here and the gate reports
// it as it always did. Accepted forms: a block list ("sources:" then
// indented "- entry" lines), a flow list ("sources: [a, b]") and a single
// inline entry; each entry a plain, single- or double-quoted scalar.
func Sources(text string) (cites []Citation, bad []Invalid) {
	stripped := pytext.Strip(text)
	block, err := frontmatter.Scan(stripped)
	if err != nil {
		return nil, nil
	}
	k, ok := block.Get("sources")
	if !ok {
		return nil, nil
	}
	type item struct {
		raw  string
		line int
	}
	var items []item
	raw := pytext.Strip(k.Raw)
	switch {
	case raw == "":
		for i := k.Line + 1; i < block.Close; i++ {
			l := block.Lines[i]
			if frontmatter.Skippable(l) {
				continue
			}
			t := pytext.LStrip(l)
			if len(t) == len(l) { // not indented: the next key
				break
			}
			v, ok := strings.CutPrefix(t, "-")
			if !ok || (v != "" && v[0] != ' ' && v[0] != '\t') {
				bad = append(bad, Invalid{Entry: pytext.Strip(t), Reason: "not a list item", Line: i + 1})
				continue
			}
			items = append(items, item{pytext.Strip(v), i + 1})
		}
	case raw[0] == '[':
		if !strings.HasSuffix(raw, "]") {
			return nil, []Invalid{{Entry: raw, Reason: "unterminated flow list", Line: k.Line + 1 + leadingLines(text)}}
		}
		inner := pytext.Strip(raw[1 : len(raw)-1])
		if inner != "" {
			for _, part := range splitFlow(inner) {
				items = append(items, item{pytext.Strip(part), k.Line + 1})
			}
		}
	default:
		items = append(items, item{raw, k.Line + 1})
	}
	if len(items) > MaxSources {
		return nil, append(bad, Invalid{Reason: "more than " + strconv.Itoa(MaxSources) + " entries", Line: k.Line + 1})
	}
	seen := map[Citation]bool{}
	for _, it := range items {
		s, reason := scalar(it.raw)
		if reason == "" {
			var c Citation
			if c, reason = ParseEntry(s); reason == "" {
				c.From = "sources"
				if !seen[c] {
					seen[c] = true
					cites = append(cites, c)
				}
				continue
			}
		}
		bad = append(bad, Invalid{Entry: it.raw, Reason: reason, Line: it.line})
	}
	sort.SliceStable(bad, func(i, j int) bool { return bad[i].Line < bad[j].Line })
	// The block's lines count from the stripped text; a finding names the
	// line of the file, after any blank lines before the frontmatter.
	if off := leadingLines(text); off > 0 {
		for i := range bad {
			bad[i].Line += off
		}
	}
	return cites, bad
}

// leadingLines counts the line breaks in the whitespace that pytext.Strip
// removes from the start of text.
func leadingLines(text string) int {
	lead := text[:len(text)-len(pytext.LStrip(text))]
	return strings.Count(lead, "\n") + strings.Count(strings.ReplaceAll(lead, "\r\n", ""), "\r")
}

// splitFlow splits a flow list's inside at top-level commas (quotes
// respected).
func splitFlow(s string) []string {
	var out []string
	start, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ',':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// scalar decodes one list entry as a string, or says why it is not one
// (YAML would read a number, a boolean, null, a mapping or a list).
func scalar(raw string) (string, string) {
	switch {
	case raw == "":
		return "", "empty entry"
	case raw[0] == '{' || raw[0] == '[' || raw[0] == '&' || raw[0] == '*' || raw[0] == '!' || raw[0] == '|' || raw[0] == '>':
		return "", "not a string"
	case raw[0] == '"' || raw[0] == '\'':
		v, err := frontmatter.DecodeScalar("sources", raw)
		if err != nil {
			return "", "bad quoted string"
		}
		if (raw[0] == '\'' && (len(raw) < 2 || raw[len(raw)-1] != '\'')) || (raw[0] == '"' && !strings.HasSuffix(raw, `"`)) {
			return "", "bad quoted string"
		}
		return v, ""
	}
	if i := strings.Index(raw, " #"); i >= 0 { // a YAML comment ends a plain scalar
		raw = pytext.RStrip(raw[:i])
	}
	if strings.Contains(raw, ": ") || strings.HasSuffix(raw, ":") {
		return "", "not a string"
	}
	switch strings.ToLower(raw) {
	case "~", "null", "true", "false", "yes", "no", "on", "off":
		return "", "not a string"
	}
	if _, err := strconv.ParseFloat(raw, 64); err == nil {
		return "", "not a string"
	}
	return raw, ""
}

// ParseEntry parses one citation: a repository-relative path (file or
// directory, an optional trailing "/"), optionally ":LINE" or
// ":START-END". The reason is "" for a citation, else why it is not one:
// empty, absolute (a leading "/" or "\", a drive letter), leaving the
// repository or not clean (".." or "." components, empty components,
// backslashes), control characters, or a bad line range.
func ParseEntry(s string) (Citation, string) {
	s = pytext.Strip(s)
	if s == "" {
		return Citation{}, "empty entry"
	}
	c := Citation{}
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		if start, end, ok := lineRange(s[i+1:]); ok {
			if start < 0 {
				return Citation{}, "bad line range"
			}
			c.Start, c.End = start, end
			s = s[:i]
		}
	}
	switch {
	case strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`):
		return Citation{}, "absolute path"
	case len(s) >= 2 && s[1] == ':' && ((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')):
		return Citation{}, "absolute path"
	case strings.Contains(s, `\`):
		return Citation{}, "backslash in path (use /)"
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return Citation{}, "control character in path"
		}
	}
	dir := strings.HasSuffix(s, "/")
	s = strings.TrimSuffix(s, "/")
	if s == "" {
		return Citation{}, "empty entry"
	}
	for _, part := range strings.Split(s, "/") {
		switch part {
		case "..":
			return Citation{}, "path leaves the repository"
		case "", ".":
			return Citation{}, "not a clean path"
		}
	}
	if dir && c.Start != 0 {
		return Citation{}, "a directory has no lines"
	}
	c.Path = s
	return c, ""
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// lineRange parses "LINE" or "START-END" (1 <= START <= END <= MaxLine).
// ok is false when s is not of that shape; a shape with bad numbers
// returns start -1.
func lineRange(s string) (start, end int, ok bool) {
	a, b, isRange := strings.Cut(s, "-")
	if !isDigits(a) || (isRange && !isDigits(b)) {
		return 0, 0, false
	}
	if len(a) > 8 || len(b) > 8 {
		return -1, 0, true
	}
	start, _ = strconv.Atoi(a)
	end = start
	if isRange {
		end, _ = strconv.Atoi(b)
	}
	if start < 1 || end < start || end > MaxLine {
		return -1, 0, true
	}
	return start, end, true
}

// Body returns the text after the frontmatter block of a page (the whole
// text when it has none).
func Body(text string) string {
	stripped := pytext.Strip(text)
	block, err := frontmatter.Scan(stripped)
	if err != nil {
		return text
	}
	pos := 0
	for i := 0; i <= block.Close; i++ {
		_, next, ok := pytext.NextLine(stripped, pos)
		if !ok {
			return ""
		}
		pos = next
	}
	return stripped[pos:]
}

// Candidate is a string of a body that may be a citation: the inside of
// an inline code span, or a Markdown link target. It is a citation only
// if it names a tracked path at the anchor (see Check): nothing is
// guessed from prose.
type Candidate struct {
	Citation
	Alt string // a link's target read as repository-relative, when Path is it read against the document's directory
}

// Candidates lists the body's code spans and link targets that parse as
// entries (ParseEntry), in order, without duplicates, at most
// 4*MaxImplicit. A code span is read as a repository-relative path; a
// link target relative to dir (the document's directory, Markdown's
// rule) and, failing that, to the repository, with a GitHub line
// fragment (#L10, #L10-L20) as the cited lines. Fenced and indented code
// blocks are skipped: a citation is written inline.
func Candidates(body, dir string) []Candidate {
	var out []Candidate
	seen := map[Candidate]bool{}
	add := func(s string, link bool) {
		if len(out) >= 4*MaxImplicit || len(s) > 4096 {
			return
		}
		alt := ""
		if link {
			target, frag, _ := strings.Cut(s, "#")
			if q := strings.IndexByte(target, '?'); q >= 0 {
				target = target[:q]
			}
			if target == "" {
				return
			}
			suffix := ""
			if a, b, ok := githubLines(frag); ok {
				suffix = ":" + a
				if b != "" {
					suffix += "-" + b
				}
			}
			if dir != "" && dir != "." && !strings.HasPrefix(target, "/") {
				joined := path.Clean(dir + "/" + target)
				if joined != ".." && !strings.HasPrefix(joined, "../") {
					if c, reason := ParseEntry(target + suffix); reason == "" {
						alt = c.Path
					}
					target = joined
				}
			}
			s = target + suffix
		}
		c, reason := ParseEntry(s)
		if reason != "" || strings.ContainsAny(c.Path, " \t") {
			return
		}
		c.From = "body"
		cand := Candidate{c, alt}
		if !seen[cand] {
			seen[cand] = true
			out = append(out, cand)
		}
	}
	fence := ""
	var para strings.Builder
	flush := func() {
		scanInline(para.String(), add)
		para.Reset()
	}
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSuffix(line, "\r")
		t := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if len(line)-len(t) <= 3 && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) {
			flush()
			n := len(t) - len(strings.TrimLeft(t, t[:1]))
			fence = strings.Repeat(t[:1], n)
			continue
		}
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
			if para.Len() == 0 { // an indented code block (not a continuation line)
				continue
			}
		}
		para.WriteString(line)
		para.WriteByte('\n')
	}
	flush()
	return out
}

// scanInline finds code spans (CommonMark: a run of n backticks closed by
// the next run of exactly n) and link targets "](target)" in one
// paragraph.
func scanInline(s string, add func(string, bool)) {
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i += 2
		case s[i] == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			j := i + n
			closed := -1
			for k := j; k < len(s); {
				if s[k] != '`' {
					k++
					continue
				}
				m := 0
				for k+m < len(s) && s[k+m] == '`' {
					m++
				}
				if m == n {
					closed = k
					break
				}
				k += m
			}
			if closed < 0 {
				i = j // a lone run is literal text
				continue
			}
			inner := strings.ReplaceAll(s[j:closed], "\n", " ")
			if len(inner) >= 2 && inner[0] == ' ' && inner[len(inner)-1] == ' ' && strings.Trim(inner, " ") != "" {
				inner = inner[1 : len(inner)-1]
			}
			add(inner, false)
			i = closed + n
		case s[i] == ']' && i+1 < len(s) && s[i+1] == '(':
			j := i + 2
			k := strings.IndexByte(s[j:], ')')
			if k < 0 {
				i++
				continue
			}
			target := strings.TrimSpace(s[j : j+k])
			if sp := strings.IndexAny(target, " \t\n"); sp >= 0 { // a title follows
				target = target[:sp]
			}
			target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
			if !strings.Contains(target, "://") && !strings.HasPrefix(target, "mailto:") {
				add(target, true)
			}
			i = j + k + 1
		default:
			i++
		}
	}
}

// githubLines reads a line fragment: "L10" or "L10-L20".
func githubLines(frag string) (string, string, bool) {
	a, b, isRange := strings.Cut(frag, "-")
	a, ok := strings.CutPrefix(a, "L")
	if !ok || !isDigits(a) {
		return "", "", false
	}
	if !isRange {
		return a, "", true
	}
	b, ok = strings.CutPrefix(b, "L")
	if !ok || !isDigits(b) {
		return "", "", false
	}
	return a, b, true
}

// Verified reads the page's verified: frontmatter field written by
// git echoes confirm: "<commit id> <date>". ok is false without one or
// when it is not of that shape (then it is ignored).
func Verified(text string) (commit, date string, ok bool) {
	block, err := frontmatter.Scan(pytext.Strip(text))
	if err != nil {
		return "", "", false
	}
	k, found := block.Get("verified")
	if !found || !k.Valued {
		return "", "", false
	}
	v, err := frontmatter.DecodeScalar("verified", k.Raw)
	if err != nil {
		return "", "", false
	}
	id, d, _ := strings.Cut(pytext.Strip(v), " ")
	if len(id) != 40 || !isHex(id) {
		return "", "", false
	}
	return id, pytext.Strip(d), true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && (s[i] < 'a' || s[i] > 'f') {
			return false
		}
	}
	return true
}

// SetVerified returns the page text with its verified: frontmatter field
// set to "<commit> <date>" (a double-quoted scalar on one line, the form
// git echoes confirm writes): an existing verified: line is replaced in
// place, else the field is added before the closing delimiter, as the
// writer adds a summary (echoes-conformance §17 step 2b). Every other line
// is kept; lines are rejoined with "\n" as that writer does.
func SetVerified(text, commit, date string) (string, error) {
	stripped := pytext.Strip(text)
	block, err := frontmatter.Scan(stripped)
	if err != nil {
		return "", err
	}
	line := "verified: " + pyjson.Quote(commit+" "+date)
	lines := pytext.SplitLines(stripped)
	if k, ok := block.Get("verified"); ok {
		end := k.Line + 1
		for end < block.Close && (frontmatter.Skippable(lines[end]) || pytext.LStrip(lines[end]) != lines[end]) {
			if frontmatter.Skippable(lines[end]) && pytext.LStrip(lines[end]) == lines[end] {
				break
			}
			end++
		}
		out := append(append(append([]string{}, lines[:k.Line]...), line), lines[end:]...)
		return strings.Join(out, "\n") + "\n", nil
	}
	out := append(append(append([]string{}, lines[:block.Close]...), line), lines[block.Close:]...)
	return strings.Join(out, "\n") + "\n", nil
}
