package importer

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Notes of Basic Memory and Obsidian: Markdown with optional YAML
// frontmatter. Basic Memory's documented note format
// (https://docs.basicmemory.com, "Knowledge format") is
//
//	---
//	title: Coffee Brewing Methods
//	type: note
//	permalink: coffee/coffee-brewing-methods
//	tags:
//	- coffee
//	---
//	# Coffee Brewing Methods
//	## Observations
//	- [method] Pour over gives more clarity #brewing (compared with French press)
//	## Relations
//	- relates_to [[Coffee Bean Origins]]
//
// Obsidian notes are the same Markdown, linked by file name
// ([[Note]], [[Note|alias]], [[Note#Heading]], ![[image.png]]).
// Observation and relation lines are kept exactly as written; only the
// targets of links are rewritten to the imported page names.

// Field is one top-level frontmatter field: its key and raw lines (the key
// line first, then the lines that continue its value).
type Field struct {
	Key   string
	Value string   // inline value after "key:", trimmed
	Lines []string // raw lines, the key line first
}

// Note is a parsed note.
type Note struct {
	Fields []Field
	Body   string
	HasFM  bool
}

// splitFrontmatter splits text into frontmatter lines and body. A note
// without a frontmatter block is all body.
func splitFrontmatter(text string) (fm []string, body string, ok bool) {
	text = strings.TrimPrefix(text, "\ufeff")
	norm := strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.HasPrefix(norm, "---\n") {
		return nil, norm, false
	}
	lines := strings.Split(norm, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" || strings.TrimRight(lines[i], " \t") == "..." {
			return lines[1:i], strings.Join(lines[i+1:], "\n"), true
		}
	}
	return nil, norm, false
}

// ParseNote parses one note's text.
func ParseNote(text string) Note {
	fm, body, ok := splitFrontmatter(text)
	return Note{Fields: parseFields(fm), Body: body, HasFM: ok}
}

// parseFields groups frontmatter lines into top-level fields: a line at
// column 0 of the form "key:" starts a field; indented lines, list items
// and blank lines continue it. Lines before the first key are dropped.
func parseFields(lines []string) []Field {
	var out []Field
	for _, l := range lines {
		if l != "" && l[0] != ' ' && l[0] != '\t' && l[0] != '-' && l[0] != '#' {
			if i := strings.IndexByte(l, ':'); i > 0 {
				out = append(out, Field{Key: strings.TrimSpace(l[:i]), Value: strings.TrimSpace(l[i+1:]), Lines: []string{l}})
				continue
			}
		}
		if len(out) > 0 {
			out[len(out)-1].Lines = append(out[len(out)-1].Lines, l)
		}
	}
	return out
}

// Get returns the field named key.
func (n Note) Get(key string) (Field, bool) {
	for _, f := range n.Fields {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

// Scalar decodes an inline YAML scalar: plain, single- or double-quoted.
func (f Field) Scalar() string {
	v := f.Value
	if i := strings.Index(v, " #"); i >= 0 && !strings.HasPrefix(v, `"`) && !strings.HasPrefix(v, "'") {
		v = strings.TrimSpace(v[:i])
	}
	switch {
	case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
		return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, " ", `\t`, " ").Replace(v[1 : len(v)-1])
	case len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'':
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'")
	}
	return v
}

// List decodes a YAML list: inline [a, b], a block of "- a" lines, or a
// plain scalar of space- or comma-separated words (Obsidian accepts
// "tags: a b").
func (f Field) List() []string {
	var items []string
	v := strings.TrimSpace(f.Value)
	switch {
	case strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]"):
		for _, it := range strings.Split(v[1:len(v)-1], ",") {
			items = append(items, Field{Value: strings.TrimSpace(it)}.Scalar())
		}
	case v != "":
		for _, it := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
			items = append(items, Field{Value: it}.Scalar())
		}
	default:
		for _, l := range f.Lines[1:] {
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "- ") || t == "-" {
				items = append(items, Field{Value: strings.TrimSpace(strings.TrimPrefix(t, "-"))}.Scalar())
			}
		}
	}
	var out []string
	for _, it := range items {
		if it = strings.TrimSpace(it); it != "" {
			out = append(out, it)
		}
	}
	return out
}

// Link is one [[wikilink]] of a body: Target is the part before any
// "#heading" or "|alias".
type Link struct {
	Embed   bool
	Target  string
	Heading string // "#..." kept as written, or ""
	Alias   string // text after "|", or ""
	Line    int
}

// wikiRe matches [[...]] and ![[...]] with no bracket inside.
var wikiRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(!?)\[\[([^\[\]\n]+?)\]\]`) })

// splitLink splits the inside of [[...]].
func splitLink(inner string) (target, heading, alias string) {
	target = inner
	if i := strings.IndexByte(target, '|'); i >= 0 {
		target, alias = target[:i], target[i+1:]
		target = strings.TrimSuffix(target, `\`) // [[a\|b]] inside Markdown tables
	}
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target, heading = target[:i], target[i:]
	}
	return strings.TrimSpace(target), heading, alias
}

// Links lists the wikilinks of body outside fenced code blocks.
func Links(body string) []Link {
	var out []Link
	forEachLine(body, func(n int, line string, code bool) string {
		if code {
			return line
		}
		for _, m := range wikiRe().FindAllStringSubmatch(line, -1) {
			t, h, a := splitLink(m[2])
			out = append(out, Link{Embed: m[1] == "!", Target: t, Heading: h, Alias: a, Line: n})
		}
		return line
	})
	return out
}

// RewriteLinks replaces the target of every wikilink outside fenced code
// with what resolve returns for it; resolve returns ok false to leave the
// link as written (a broken link).
func RewriteLinks(body string, resolve func(l Link) (string, bool)) string {
	return forEachLine(body, func(n int, line string, code bool) string {
		if code || !strings.Contains(line, "[[") {
			return line
		}
		return wikiRe().ReplaceAllStringFunc(line, func(s string) string {
			m := wikiRe().FindStringSubmatch(s)
			t, h, a := splitLink(m[2])
			l := Link{Embed: m[1] == "!", Target: t, Heading: h, Alias: a, Line: n}
			repl, ok := resolve(l)
			if !ok {
				return s
			}
			out := m[1] + "[[" + repl + h
			if a != "" {
				out += "|" + a
			} else if !l.Embed && repl != t && t != "" {
				out += "|" + t // keep the text the note showed
			}
			return out + "]]"
		})
	})
}

// forEachLine calls fn for every line of text with its one-based number and
// whether it is inside a fenced code block, and joins what fn returns.
func forEachLine(text string, fn func(n int, line string, code bool) string) string {
	lines := strings.Split(text, "\n")
	fence := ""
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		isFence := strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
		switch {
		case fence != "":
			if isFence && strings.HasPrefix(t, fence) {
				fence = ""
			}
			lines[i] = fn(i+1, l, true)
		case isFence:
			fence = t[:3]
			lines[i] = fn(i+1, l, true)
		default:
			lines[i] = fn(i+1, l, false)
		}
	}
	return strings.Join(lines, "\n")
}

// observationRe is Basic Memory's observation line: "- [category] text".
var observationRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*[-*] \[([^\]]+)\] (.+)$`) })

// FirstHeading returns the text of the first "# " heading outside code.
func FirstHeading(body string) string {
	h := ""
	forEachLine(body, func(_ int, line string, code bool) string {
		if h == "" && !code && strings.HasPrefix(line, "# ") {
			h = strings.TrimSpace(line[2:])
		}
		return line
	})
	return h
}

// SummaryOf derives a one-line summary of at most 160 characters
// (protocol §7.3) from the first observation of body, else its first
// paragraph line that is not a heading; "" when there is none.
func SummaryOf(body string) string {
	first, obs := "", ""
	forEachLine(body, func(_ int, line string, code bool) string {
		t := strings.TrimSpace(line)
		if code || t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "<!--") || strings.HasPrefix(t, "---") {
			return line
		}
		if obs == "" {
			if m := observationRe().FindStringSubmatch(line); m != nil {
				obs = m[2]
			}
		}
		if first == "" {
			first = strings.TrimLeft(t, "-*> ")
		}
		return line
	})
	if obs != "" {
		return BoundSummary(obs)
	}
	return BoundSummary(first)
}

// BoundSummary makes s one line of at most 160 characters: whitespace runs
// become one space and a longer text is cut at a word with "…".
func BoundSummary(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= 160 {
		return s
	}
	r := []rune(s)[:159]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > 80 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:.") + "…"
}
