package gate

import (
	"github.com/git-echoes/git-echoes/gitvault"
	"strings"

	"github.com/git-echoes/git-echoes/internal/pytext"
)

// wikiLink is one Obsidian-style link of a page or daily entry
// (protocol §7.4: [[page-slug]] for pages, ![[asset-name.ext]] for assets).
type wikiLink struct {
	Line   int    // 1-based, universal newlines (as conflict markers count)
	Text   string // the link as written, between the brackets
	Target string // the file part: no alias, heading or block reference, trimmed
	Embed  bool   // ![[...]]
}

// scanWikilinks returns the links of text in order. The syntax is
// Obsidian's, and so are the places where brackets are not links:
//
//   - [[target]], [[target|alias]], [[target#heading]], [[target#^block]],
//     [[target#heading|alias]]; a "\|" (the escaped pipe of a table cell)
//     ends the target like "|"; ![[...]] is an embed (for an image, the
//     part after '|' is its size);
//   - the link ends at the first "]]" on its line and holds no '[' or ']';
//     links never span lines; [[]] and [[#heading]] (the page itself) are
//     not reported;
//   - "\[[" is an escaped bracket, not a link;
//   - fenced code blocks (``` or ~~~, up to three spaces of indentation,
//     closed by a fence of the same character at least as long; an
//     unclosed fence runs to the end of the text) and inline code spans
//     (a run of N backticks closed by the next run of exactly N on the
//     same line) hold no links. Indented code blocks are not recognised
//     (a four-space indent is also a nested list item), nor are HTML or
//     %%Obsidian%% comments: links there are checked like any other.
func scanWikilinks(text string) []wikiLink {
	if !strings.Contains(text, "[[") {
		return nil
	}
	var out []wikiLink
	var fence string // the opening fence while inside a fenced block
	lines := strings.Split(pytext.UniversalNewlines(text), "\n")
	for n, line := range lines {
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
			continue
		}
		if f := openingFence(line); f != "" {
			fence = f
			continue
		}
		if !strings.Contains(line, "[[") {
			continue
		}
		out = appendLineLinks(out, blankCodeSpans(line), n+1)
	}
	return out
}

// openingFence returns the fence (the run of '`' or '~') that line opens,
// or "".
func openingFence(line string) string {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 || len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 || (s[0] == '`' && strings.Contains(s[n:], "`")) {
		return "" // a backtick fence's info string holds no backtick
	}
	return s[:n]
}

// closesFence reports whether line closes the block opened by fence.
func closesFence(line, fence string) bool {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return false
	}
	n := 0
	for n < len(s) && s[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.Trim(s[n:], " \t") == ""
}

// blankCodeSpans replaces every inline code span of line, backticks
// included, with spaces, so no link starts, ends or hides inside one.
func blankCodeSpans(line string) string {
	if !strings.Contains(line, "`") {
		return line
	}
	b := []byte(line)
	for i := 0; i < len(b); {
		if b[i] != '`' {
			i++
			continue
		}
		j := i
		for j < len(b) && b[j] == '`' {
			j++
		}
		run := j - i
		// find the next run of exactly run backticks
		closeAt := -1
		for k := j; k < len(b); {
			if b[k] != '`' {
				k++
				continue
			}
			m := k
			for m < len(b) && b[m] == '`' {
				m++
			}
			if m-k == run {
				closeAt = m
				break
			}
			k = m
		}
		if closeAt < 0 {
			i = j // literal backticks
			continue
		}
		for k := i; k < closeAt; k++ {
			b[k] = ' '
		}
		i = closeAt
	}
	return string(b)
}

// appendLineLinks appends the links of one line (code spans blanked).
func appendLineLinks(out []wikiLink, line string, n int) []wikiLink {
	for i := 0; ; {
		k := strings.Index(line[i:], "[[")
		if k < 0 {
			return out
		}
		start := i + k
		if start > 0 && line[start-1] == '\\' {
			i = start + 1
			continue
		}
		end := strings.Index(line[start+2:], "]]")
		if end < 0 {
			return out
		}
		inner := line[start+2 : start+2+end]
		if strings.ContainsAny(inner, "[]") {
			i = start + 1 // "[[[x]]": the link starts at a later "[["
			continue
		}
		i = start + 2 + end + 2
		target := inner
		if p := strings.IndexByte(target, '|'); p >= 0 {
			target = strings.TrimSuffix(target[:p], "\\")
		}
		if h := strings.IndexByte(target, '#'); h >= 0 {
			target = target[:h]
		}
		target = strings.TrimSpace(target)
		if target == "" {
			continue
		}
		out = append(out, wikiLink{Line: n, Text: inner, Target: target, Embed: start > 0 && line[start-1] == '!'})
	}
}

// linkResolver answers whether a link's target exists in the snapshot.
// Like Obsidian (and like the page-name collision rule of
// echoes-conformance §8.3), names compare after NFC and case folding; a bare name resolves to
// a page stem or to any vault file of that name (with or without its .md),
// a name with '/' to that path below EchoesVault/, and an embed with a file
// extension to a file of EchoesVault/assets/ (by name or path) or to that
// path below EchoesVault/.
type linkResolver struct {
	pages     map[string]bool // folded page stems
	paths     map[string]bool // folded paths below EchoesVault/
	names     map[string]bool // folded base names of every vault file
	assetName map[string]bool // folded base names below assets/
}

func fold(s string) string { return pytext.Casefold(pytext.NFC(s)) }

func newLinkResolver(s *gitvault.Snapshot) *linkResolver {
	r := &linkResolver{pages: map[string]bool{}, paths: map[string]bool{}, names: map[string]bool{}, assetName: map[string]bool{}}
	for _, n := range s.Pages {
		r.pages[fold(gitvault.PageStem(n))] = true
	}
	// index.md is generated in every checkout (hydrate) and never committed
	// (echoes-conformance §11): a link to it resolves in every source.
	r.paths["index.md"], r.names["index.md"] = true, true
	for _, f := range s.Files {
		rel := fold(strings.TrimPrefix(f.Path, gitvault.VaultPrefix))
		r.paths[rel] = true
		base := rel[strings.LastIndexByte(rel, '/')+1:]
		r.names[base] = true
		if strings.HasPrefix(rel, "assets/") {
			r.assetName[base] = true
		}
	}
	return r
}

// isFileExt reports whether target ends in a file extension other than
// .md: a '.' followed by 1 to 10 letters or digits.
func isFileExt(target string) bool {
	base := target[strings.LastIndexByte(target, '/')+1:]
	dot := strings.LastIndexByte(base, '.')
	if dot <= 0 || dot == len(base)-1 || len(base)-dot-1 > 10 || strings.EqualFold(base[dot:], ".md") {
		return false
	}
	for _, c := range base[dot+1:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// resolves reports whether the link's target exists, and which rule a
// missing one breaks.
func (r *linkResolver) resolves(l wikiLink) (ok bool, rule string) {
	t := fold(strings.TrimPrefix(l.Target, "/"))
	t = strings.TrimPrefix(t, fold(gitvault.VaultPrefix))
	if l.Embed && isFileExt(l.Target) {
		if r.paths[t] || r.paths["assets/"+t] || (!strings.Contains(t, "/") && r.assetName[t]) {
			return true, ""
		}
		return false, ruleAssetMissing
	}
	stem := strings.TrimSuffix(t, ".md")
	if strings.Contains(t, "/") {
		if r.paths[t] || r.paths[stem+".md"] || r.paths["pages/"+stem+".md"] {
			return true, ""
		}
		return false, ruleWikilinkMissing
	}
	if r.pages[stem] || r.names[t] || r.names[stem+".md"] {
		return true, ""
	}
	return false, ruleWikilinkMissing
}
