// Package wikilink finds the [[wikilinks]] of a page or daily entry
// (protocol §7.4: [[page-slug]] for pages, ![[asset-name.ext]] for
// assets). It is the one scanner of the house: the gate's wikilink-missing
// rule (gitvault/gate) and the viewer's links, backlinks and graph
// (viewer) both read links through Scan, so a link the gate checks is a
// link the viewer counts, and a [[link]] in code is neither (issue 17).
package wikilink

import (
	"strings"

	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Link is one Obsidian-style link of a page or daily entry.
type Link struct {
	Line   int    // 1-based, universal newlines (as conflict markers count)
	Text   string // the link as written, between the brackets
	Target string // the file part: no alias, heading or block reference, trimmed
	Embed  bool   // ![[...]]
}

// Scan returns the links of text in order. The syntax is
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
func Scan(text string) []Link {
	if !strings.Contains(text, "[[") {
		return nil
	}
	var out []Link
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
		out = appendLineLinks(out, line, blankCodeSpans(line), n+1)
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

// appendLineLinks appends the links of one line: line is the line with its
// code spans blanked (same byte offsets), orig the line as written.
func appendLineLinks(out []Link, orig, line string, n int) []Link {
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
		if orig[start+2:start+2+end] != inner {
			// A code span inside the brackets ("[[`x`]]"): which one
			// binds first is ambiguous, and a link whose target is
			// half code is no page name; not a link (the gate's
			// wikilink-missing and the viewer's backlinks agree).
			continue
		}
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
		out = append(out, Link{Line: n, Text: inner, Target: target, Embed: start > 0 && line[start-1] == '!'})
	}
}
