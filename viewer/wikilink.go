package viewer

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/wikilink"
)

// maxWikilink bounds the bytes between the brackets of one [[wikilink]];
// longer runs are left as text.
const maxWikilink = 512

// Wikilink is one parsed [[target]], [[target|label]] or ![[asset]]
// (protocol §7.4: [[page-slug]] links pages, ![[asset-name.ext]] embeds
// files of EchoesVault/assets/).
type Wikilink struct {
	Target string // the page slug or asset path, trimmed, without #anchor
	Anchor string // the text after '#', "" when none
	Label  string // the text after '|', else the link as written
	Embed  bool   // ![[...]]
}

// ParseWikilink parses a wikilink at the start of b. It returns the link and
// the number of bytes it spans, or ok false when b does not start with one.
// The content must be valid UTF-8 on one line, hold no '[' or ']', and have
// a non-blank target.
func ParseWikilink(b []byte) (w Wikilink, n int, ok bool) {
	start := 0
	if len(b) > 0 && b[0] == '!' {
		w.Embed = true
		start = 1
	}
	if !bytes.HasPrefix(b[start:], []byte("[[")) {
		return Wikilink{}, 0, false
	}
	body := b[start+2:]
	end := bytes.Index(body, []byte("]]"))
	if end < 0 || end > maxWikilink {
		return Wikilink{}, 0, false
	}
	inner := body[:end]
	if bytes.ContainsAny(inner, "[]\n\r\x00") || !utf8.Valid(inner) {
		return Wikilink{}, 0, false
	}
	ref, label, hasLabel := strings.Cut(string(inner), "|")
	target, anchor, _ := strings.Cut(ref, "#")
	target = strings.TrimSpace(target)
	if target == "" {
		return Wikilink{}, 0, false
	}
	w.Target = target
	w.Anchor = strings.TrimSpace(anchor)
	w.Label = strings.TrimSpace(ref)
	if l := strings.TrimSpace(label); hasLabel && l != "" {
		w.Label = l
	}
	return w, start + 2 + end + 2, true
}

// ExtractWikilinks returns every wikilink of text in order (embeds
// included), as the backlink and graph views count them. The links are
// the gate's (internal/wikilink.Scan, the wikilink-missing rule): a
// [[link]] inside a code span or a fenced code block, or after an escaped
// bracket, is not a link, so a backlink the viewer shows is a link the
// gate checks (issue 17).
func ExtractWikilinks(text string) []Wikilink {
	links := wikilink.Scan(text)
	if len(links) == 0 {
		return nil
	}
	out := make([]Wikilink, 0, len(links))
	for _, l := range links {
		ref, label, hasLabel := strings.Cut(l.Text, "|")
		ref = strings.TrimSuffix(ref, "\\") // [[page\|alias]] in a table: an escaped pipe
		_, anchor, _ := strings.Cut(ref, "#")
		w := Wikilink{Target: l.Target, Anchor: strings.TrimSpace(anchor), Label: strings.TrimSpace(ref), Embed: l.Embed}
		if lb := strings.TrimSpace(label); hasLabel && lb != "" {
			w.Label = lb
		}
		out = append(out, w)
	}
	return out
}
