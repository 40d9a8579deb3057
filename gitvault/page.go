package gitvault

import (
	"strings"

	"github.com/git-echoes/git-echoes/internal/frontmatter"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// ParsedPage is a parsed knowledge page (echoes-conformance §9).
type ParsedPage struct {
	Text       string // strip(content) + "\n": the bytes a writer stores
	Type       string
	Status     string // casefolded
	Summary    string // normalized (echoes-conformance §10); empty when HasSummary is false
	HasSummary bool
	Block      *frontmatter.Block // the parsed frontmatter, for readers of additional fields (stack, sources)
}

// detach returns a copy of p that shares no memory with the text it was
// parsed from, so a reused read buffer can be overwritten.
func (p *ParsedPage) detach() *ParsedPage {
	return &ParsedPage{Text: strings.Clone(p.Text), Type: strings.Clone(p.Type), Status: strings.Clone(p.Status),
		Summary: strings.Clone(p.Summary), HasSummary: p.HasSummary}
}

// Deprecated reports the standardized deprecated status.
func (p *ParsedPage) Deprecated() bool { return p.Status == "deprecated" }

// validatePage validates page content. With requireSummary false (legacy paths)
// a page without a valued summary is accepted with HasSummary false.
func validatePage(content string, requireSummary bool) (*ParsedPage, error) {
	return ParsePage(content, requireSummary, true)
}

// ParsePage parses content; keepText false skips building the stored text,
// which index renders of existing pages never need.
func ParsePage(content string, requireSummary, keepText bool) (*ParsedPage, error) {
	if pytext.IsBlank(content) {
		return nil, Errorf("Page content must be a non-empty string.")
	}
	// The stored text is strip(content) + "\n". The conflict regex and the
	// line scanner give the same answers on strip(content) alone ($ matches
	// at the end as before a final newline; a final separator adds no line),
	// so the copy is only made when the caller keeps the text.
	stripped := pytext.Strip(content)
	if hasConflictMarkerAnyNewline(stripped) {
		return nil, Errorf("Page contains unresolved Git conflict markers.")
	}
	block, err := frontmatter.Scan(stripped)
	if err != nil {
		return nil, Errorf("%s", err.Error())
	}
	required := requiredFrontmatter
	if !requireSummary {
		required = required[:3]
	}
	if missing := block.Missing(required); len(missing) > 0 {
		return nil, Errorf("%s", frontmatter.MissingError(missing).Error())
	}
	p := &ParsedPage{Block: block}
	if keepText {
		p.Text = stripped + "\n"
	}
	if p.Type, err = decodeKey(block, "type"); err != nil {
		return nil, err
	}
	status, err := decodeKey(block, "status")
	if err != nil {
		return nil, err
	}
	p.Status = pytext.Casefold(status)
	if k, ok := block.Get("summary"); ok && k.Valued {
		raw, err := frontmatter.DecodeScalar("summary", k.Raw)
		if err != nil {
			return nil, Errorf("%s", err.Error())
		}
		if p.Summary, err = normalizeSummary(pyjson.Str(raw), ""); err != nil {
			return nil, err
		}
		p.HasSummary = true
	}
	return p, nil
}

func decodeKey(b *frontmatter.Block, key string) (string, error) {
	k, _ := b.Get(key)
	v, err := frontmatter.DecodeUnwrittenScalar(key, k.Raw)
	if err != nil {
		return "", Errorf("%s", err.Error())
	}
	return v, nil
}

// normalizeSummary implements echoes-conformance §10. slug, when non-empty, must match an
// index-row link wrapped around the value.
func normalizeSummary(v pyjson.Value, slug string) (string, error) {
	if v.Kind != pyjson.String || pytext.IsBlank(v.S) {
		return "", Errorf("Page summary must be a non-empty single-line string.")
	}
	s := pytext.Strip(v.S)
	if link, desc, ok := matchIndexRow(s); ok {
		if slug != "" && link != slug {
			return "", Errorf("Index link [[%s]] does not match page [[%s]].", link, slug)
		}
		s = pytext.Strip(desc)
	}
	if strings.ContainsAny(s, "\n\r") {
		return "", Errorf("Page summary must fit on one line.")
	}
	s = strings.Join(pytext.Fields(s), " ")
	if s == "" {
		return "", Errorf("Page summary cannot be empty.")
	}
	if n := pytext.Len(s); n > summaryLimit {
		return "", Errorf("Page summary exceeds 160 characters (%d).", n)
	}
	if HasConflictMarker(s) {
		return "", Errorf("Page summary contains a Git conflict marker.")
	}
	return s, nil
}

// matchIndexRow matches ^- \[\[([^\]]+)\]\]:\s*(.*)$ against one string
// (Python re.match: $ at the end or before a final "\n"; . excludes "\n").
func matchIndexRow(s string) (link, desc string, ok bool) {
	if !strings.HasPrefix(s, "- [[") {
		return "", "", false
	}
	rest := s[4:]
	end := strings.IndexByte(rest, ']')
	if end <= 0 || !strings.HasPrefix(rest[end:], "]]:") {
		return "", "", false
	}
	link = rest[:end]
	desc = pytext.LStrip(rest[end+3:])
	desc = strings.TrimSuffix(desc, "\n")
	if strings.Contains(desc, "\n") {
		return "", "", false
	}
	return link, desc, true
}

// injectSummary inserts a quoted summary line before the closing delimiter
// (echoes-conformance §17 step 2b) and re-validates the page with the summary required.
func injectSummary(p *ParsedPage, summary string) (*ParsedPage, error) {
	lines := pytext.SplitLines(p.Text)
	out := make([]string, 0, len(lines)+1)
	out = append(out, lines[:p.Block.Close]...)
	out = append(out, "summary: "+pyjson.Quote(summary))
	out = append(out, lines[p.Block.Close:]...)
	return validatePage(pytext.RStrip(strings.Join(out, "\n"))+"\n", true)
}
