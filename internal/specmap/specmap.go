// Package specmap finds the specification citations in the source tree and
// renders docs/spec-map.md, the index from every section of the specs to the
// lines that cite it, so that "where is rule X implemented?" is one grep or
// one look at the map.
//
// # Grammar
//
// A citation is a document name, one space, "§" and a section:
//
//	protocol §12.9               EchoesVault Protocol 1.0.0 (seed 000)
//	echoes-conformance §12       CONFORMANCE-echoes.md
//	ecc-conformance §17.5        CONFORMANCE-ecc.md
//	ecc-seed §threat-boundary    ECC memory vault design (seed 001)
//	ecc-seed-zh §检索完整性与当前状态  its Chinese edition (seed 002)
//	design §portable-runtime     DESIGN.md, the house plan
//
// Every "§" is preceded by its document's name, also in a list:
// "protocol §7.1, protocol §8", never "protocol §7.1, §8", so that
// grepping for "protocol §8" finds every line that cites it. The numbered documents are
// cited by section number; the seeds and the design have no numbers and
// are cited by the anchor of a heading. Whatever follows the section is
// free text ("echoes-conformance §9 step 3", "§12 Quirk"). The name and
// its "§" stay on one line.
//
// # Files
//
// Scan reads *.go and *.txtar files anywhere below the root and *.md files
// below docs/, except docs/spec-map.md itself; it skips directories whose
// name starts with "." and this package, whose sources and tests spell out
// the grammar. README.md is not scanned.
package specmap

//go:generate go run ../../cmd/specmap

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MapPath is the generated map, relative to the module root.
const MapPath = "docs/spec-map.md"

// selfDir is this package, which Scan skips.
const selfDir = "internal/specmap"

// Sign is the section sign that starts every citation.
const Sign = "\u00a7"

// Doc is a specification document that citations may name.
type Doc struct {
	Name     string // the name a citation uses, e.g. "protocol"
	Title    string
	Source   string // where the document is
	Numbered bool   // sections are numbers (12.9) rather than heading anchors
	Sections []Section
}

// Section is one section of a document.
type Section struct {
	ID    string // "12.9", or a heading anchor such as "threat-boundary"
	Title string
}

// Citation is one "<doc> §<section>" found at a line.
type Citation struct {
	Doc, Section string
	Path         string // slash-separated, relative to the root
	Line         int
}

// Problem is a "§" that is not a valid citation.
type Problem struct {
	Path string
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Msg) }

var (
	numberRe = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)*`)
	anchorRe = regexp.MustCompile(`^[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*`)
)

// docsByName lists the documents longest name first, so that "ecc-seed-zh"
// is tried before "ecc-seed".
var docsByName = func() []*Doc {
	ds := make([]*Doc, len(Docs))
	for i := range Docs {
		ds[i] = &Docs[i]
	}
	sort.SliceStable(ds, func(i, j int) bool { return len(ds[i].Name) > len(ds[j].Name) })
	return ds
}()

func (d *Doc) section(id string) (Section, bool) {
	for _, s := range d.Sections {
		if s.ID == id {
			return s, true
		}
	}
	return Section{}, false
}

// docBefore returns the document whose name, followed by one space, ends
// prefix at a word boundary.
func docBefore(prefix string) *Doc {
	for _, d := range docsByName {
		rest, ok := strings.CutSuffix(prefix, d.Name+" ")
		if !ok {
			continue
		}
		r, _ := utf8.DecodeLastRuneInString(rest)
		if rest == "" || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_') {
			return d
		}
	}
	return nil
}

func docNames() string {
	names := make([]string, len(Docs))
	for i, d := range Docs {
		names[i] = d.Name
	}
	return strings.Join(names, ", ")
}

// ScanText finds the citations and the invalid uses of "§" in the text of
// the file at path (slash-separated, used only for reporting).
func ScanText(path, text string) ([]Citation, []Problem) {
	var cites []Citation
	var probs []Problem
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		for off := 0; ; {
			i := strings.Index(line[off:], Sign)
			if i < 0 {
				break
			}
			i += off
			off = i + len(Sign)
			d := docBefore(line[:i])
			if d == nil {
				probs = append(probs, Problem{path, n + 1, fmt.Sprintf("%s without a document name before it (one of %s, then one space)", Sign, docNames())})
				continue
			}
			re := anchorRe
			if d.Numbered {
				re = numberRe
			}
			id := re.FindString(line[off:])
			if id == "" {
				probs = append(probs, Problem{path, n + 1, fmt.Sprintf("%s %s without a section", d.Name, Sign)})
				continue
			}
			if _, ok := d.section(id); !ok {
				probs = append(probs, Problem{path, n + 1, fmt.Sprintf("%s %s%s: no such section in %s", d.Name, Sign, id, d.Title)})
				continue
			}
			cites = append(cites, Citation{Doc: d.Name, Section: id, Path: path, Line: n + 1})
		}
	}
	return cites, probs
}

// scanned reports whether the file at rel (slash-separated) is scanned.
func scanned(rel string) bool {
	switch {
	case strings.HasSuffix(rel, ".go"), strings.HasSuffix(rel, ".txtar"):
		return true
	case strings.HasPrefix(rel, "docs/") && strings.HasSuffix(rel, ".md"):
		return rel != MapPath
	}
	return false
}

// Scan reads every scanned file below root (see the package comment) and
// returns their citations and problems, in path and line order.
func Scan(root string) ([]Citation, []Problem, error) {
	var cites []Citation
	var probs []Problem
	err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if de.IsDir() {
			if rel != "." && (strings.HasPrefix(de.Name(), ".") || rel == selfDir) {
				return filepath.SkipDir
			}
			return nil
		}
		if !de.Type().IsRegular() || !scanned(rel) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		c, pr := ScanText(rel, string(data))
		cites = append(cites, c...)
		probs = append(probs, pr...)
		return nil
	})
	return cites, probs, err
}

// Generate scans root and renders the map. The map is only meaningful when
// problems is empty.
func Generate(root string) (text []byte, problems []Problem, err error) {
	cites, probs, err := Scan(root)
	if err != nil {
		return nil, nil, err
	}
	return Render(cites), probs, nil
}

// header is the map's introduction; \x60 stands for a backquote.
const header = `# Spec map

<!-- Generated by go run ./cmd/specmap (or go generate ./internal/specmap). Do not edit. -->

Every citation of a specification in this repository names its document, then
one space, § and the section: \x60protocol §12.9\x60, \x60echoes-conformance §12\x60,
\x60ecc-conformance §17.5\x60, \x60ecc-seed §threat-boundary\x60. Each § has its own
document name, also in lists (\x60protocol §7.1, protocol §8\x60), so one grep finds
every line behind a rule:

    grep -rnw 'echoes-conformance §8\.3' --include='*.go' --include='*.txtar' .

The numbered documents are cited by section number, the others by the anchor of
a heading. This page lists, for every section, the lines that cite it. It is
generated from the *.go and *.txtar files and docs/*.md (not README.md, not this
page) by \x60go run ./cmd/specmap\x60. \x60go test ./internal/specmap\x60 fails when the
page is stale, when a § is not preceded by a document name, and when a citation
names a section its document does not have: regenerate it after moving code.

%d citations in %d files.

| Name | Document | Where | Citations |
|---|---|---|---|
`

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Render writes the map for cites: every document in Docs order, every
// section in document order (numeric order for the numbered documents),
// and for each section the citing lines sorted by path and line number.
func Render(cites []Citation) []byte {
	type key struct{ doc, section string }
	at := map[key][]Citation{}
	perDoc := map[string]int{}
	files := map[string]bool{}
	seen := map[Citation]bool{}
	for _, c := range cites {
		if seen[c] {
			continue
		}
		seen[c] = true
		k := key{c.Doc, c.Section}
		at[k] = append(at[k], c)
		perDoc[c.Doc]++
		files[c.Path] = true
	}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	// The header, with "`" written as "\x60" so it can be a raw string.
	head := strings.ReplaceAll(header, `\x60`, "`")
	fmt.Fprintf(w, head, len(seen), len(files))
	for _, d := range Docs {
		fmt.Fprintf(w, "| `%s` | %s | %s | %d |\n", d.Name, mdCell(d.Title), d.Source, perDoc[d.Name])
	}
	for _, d := range Docs {
		fmt.Fprintf(w, "\n## %s: %s\n\n| %s | Section | Cited at |\n|---|---|---|\n", d.Name, d.Title, Sign)
		for _, s := range d.Sections {
			cs := at[key{d.Name, s.ID}]
			sort.Slice(cs, func(i, j int) bool {
				if cs[i].Path != cs[j].Path {
					return cs[i].Path < cs[j].Path
				}
				return cs[i].Line < cs[j].Line
			})
			links := make([]string, len(cs))
			for i, c := range cs {
				links[i] = fmt.Sprintf("[%s:%d](%s#L%d)", c.Path, c.Line, path.Join("..", c.Path), c.Line)
			}
			fmt.Fprintf(w, "| %s | %s | %s |\n", s.ID, mdCell(s.Title), strings.Join(links, ", "))
		}
	}
	w.Flush()
	return b.Bytes()
}
