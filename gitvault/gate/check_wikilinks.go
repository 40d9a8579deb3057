package gate

import (
	"strings"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/pytext"
	"github.com/git-echoes/git-echoes/internal/wikilink"
)

// wikiLink is one link of a page or daily entry, as internal/wikilink
// scans it (the viewer counts links through the same scanner, issue 17).
type wikiLink = wikilink.Link

// scanWikilinks returns the links of text in order (wikilink.Scan: code
// spans, fenced code and escaped brackets hold no links).
func scanWikilinks(text string) []wikiLink { return wikilink.Scan(text) }

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
