package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/gitvault/gate"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// Into is where an import writes.
type Into string

// The destinations.
const (
	IntoPages    Into = "pages"
	IntoMemories Into = "memories"
)

// SourceHarness is the source_harness of imported memories (ecc-conformance
// slug grammar).
const SourceHarness = "git-echoes-import"

// Options are one import's inputs.
type Options struct {
	Source  string // file or folder
	Kind    Kind   // "" detects it
	Section string // agents-md: the heading to import
	Into    Into   // "" means pages
	Force   bool   // replace pages edited since the last import
	Engine  *gitvault.Engine
	Roots   *memory.Roots // --into memories
	Now     time.Time     // memories' timestamps; zero means now
}

// PageWrite is one page the plan writes.
type PageWrite struct {
	File    string `json:"file"` // workspace-relative, slash-separated
	Name    string `json:"name"` // page file name
	Source  string `json:"source"`
	Action  string `json:"action"` // created, updated, unchanged, forced
	Content string `json:"content,omitempty"`
	sha     string // expected hash of the current page, "" when new
}

// AssetWrite is one attachment the plan copies.
type AssetWrite struct {
	File   string `json:"file"`
	Source string `json:"source"`
	Action string `json:"action"`
	Bytes  int    `json:"bytes"`
	SHA256 string `json:"sha256"`
	data   []byte
}

// MemoryWrite is one memory the plan saves.
type MemoryWrite struct {
	ID      string `json:"id"`
	File    string `json:"file"`
	Source  string `json:"source"`
	Action  string `json:"action"` // created, unchanged
	Content string `json:"content,omitempty"`
	in      memory.SaveInput
}

// BrokenLink is a link whose target is not in the import: kept as written.
type BrokenLink struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Target string `json:"target"`
}

// Plan is everything an import would write, and what it noticed.
type Plan struct {
	Kind        Kind          `json:"from"`
	Into        Into          `json:"into"`
	Source      string        `json:"source"`
	Pages       []PageWrite   `json:"pages"`
	Assets      []AssetWrite  `json:"assets"`
	Memories    []MemoryWrite `json:"memories"`
	Renamed     []Renamed     `json:"renamed"`
	BrokenLinks []BrokenLink  `json:"brokenLinks"`
	Skipped     []Problem     `json:"skipped"`
	Notes       []Problem     `json:"notes"`
}

// doc is one record about to become a page or a memory.
type doc struct {
	key        string // imported_from: "<kind>:<record>"
	sourceFile string // as reported
	line       int
	wantName   string
	stem       string
	title      string
	typ        string
	status     string
	stack      []string // raw stack field lines, or nil to derive
	stackList  []string // derived stack values
	summary    string
	extra      []string // preserved frontmatter lines
	body       string   // final body (links rewritten)
	tags       []string
	memKind    string
	links      []*doc // memory links
	// notes
	rel       string
	permalink string
	aliases   []string
	rawBody   string
	entity    *Entity
}

// PlanImport reads the source and computes the complete plan. It writes
// nothing. A refused import returns an *Error listing every problem.
func PlanImport(opt Options) (*Plan, error) {
	if opt.Into == "" {
		opt.Into = IntoPages
	}
	if opt.Into != IntoPages && opt.Into != IntoMemories {
		return nil, errorf("--into must be pages or memories, not %q", string(opt.Into))
	}
	kind := opt.Kind
	if kind == "" {
		k, err := Detect(opt.Source)
		if err != nil {
			return nil, err
		}
		kind = k
	}
	if kind == KindAgentsMD && strings.TrimSpace(opt.Section) == "" {
		return nil, errorf("Importing %s needs --section HEADING: only the section you name is imported, never the whole file", opt.Source)
	}
	if kind != KindAgentsMD && opt.Section != "" {
		return nil, errorf("--section applies to --from agents-md only")
	}
	p := &Plan{Kind: kind, Into: opt.Into, Source: opt.Source, Pages: []PageWrite{}, Assets: []AssetWrite{}, Memories: []MemoryWrite{},
		Renamed: []Renamed{}, BrokenLinks: []BrokenLink{}, Skipped: []Problem{}, Notes: []Problem{}}
	var docs []*doc
	var files map[string]*sourceFile
	var err error
	switch kind {
	case KindMCPMemory:
		docs, err = mcpDocs(opt.Source, p)
	case KindAgentsMD:
		docs, err = agentsDocs(opt.Source, opt.Section, p)
	default:
		docs, files, err = noteDocs(opt.Source, kind, p)
	}
	if err != nil {
		return nil, err
	}
	renamed, problems := assignNames(docs)
	if len(problems) > 0 {
		return nil, &Error{Msg: fmt.Sprintf("Cannot import %s: %d name(s) cannot be checked out on every OS; nothing was written.", opt.Source, len(problems)), Problems: problems}
	}
	p.Renamed = append(p.Renamed, renamed...)
	switch kind {
	case KindMCPMemory:
		mcpBodies(docs, p)
	case KindBasicMemory, KindObsidian:
		if err := noteBodies(docs, files, opt, p); err != nil {
			return nil, err
		}
	}
	if opt.Into == IntoMemories {
		if err := planMemories(docs, opt, p); err != nil {
			return nil, err
		}
		return p, nil
	}
	if err := planPages(docs, opt, p); err != nil {
		return nil, err
	}
	return p, nil
}

// scanSecrets refuses text holding a credential by the gate's scanner.
func scanSecrets(file, text string) []Problem {
	var out []Problem
	for _, f := range gate.ScanSecrets(file, text) {
		out = append(out, Problem{File: file, Line: f.Line, Message: f.Message})
	}
	return out
}

func secretError(source string, problems []Problem) error {
	return &Error{Msg: fmt.Sprintf("Cannot import %s: %d line(s) hold a suspected credential; nothing was written or copied.", source, len(problems)), Problems: problems}
}

// ---- MCP memory graph ----

func mcpDocs(source string, p *Plan) ([]*doc, error) {
	data, err := readBounded(source, MaxJSONLBytes, "memory file")
	if err != nil {
		return nil, err
	}
	file := filepath.Base(source)
	if probs := scanSecrets(file, string(data)); len(probs) > 0 {
		return nil, secretError(source, probs)
	}
	g, err := ParseJSONL(file, data)
	if err != nil {
		return nil, err
	}
	p.Notes = append(p.Notes, g.Notes...)
	var docs []*doc
	for i := range g.Entities {
		e := &g.Entities[i]
		typ := strings.TrimSpace(e.EntityType)
		if typ == "" {
			typ = "entity"
		}
		docs = append(docs, &doc{key: string(KindMCPMemory) + ":" + e.Name, sourceFile: file, line: e.Line, wantName: e.Name,
			title: e.Name, typ: typ, status: "active", entity: e, memKind: "fact", tags: slugTags([]string{typ})})
	}
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].key < docs[j].key })
	byName := map[string]*doc{}
	for _, d := range docs {
		byName[d.entity.Name] = d
	}
	out := map[*doc][]string{}
	in := map[*doc][]string{}
	for _, r := range g.Relations {
		from, to := byName[r.From], byName[r.To]
		rel := oneLine(r.RelationType)
		switch {
		case from != nil && to != nil:
			out[from] = append(out[from], rel+" [[\x02]]\x00"+to.entity.Name)
			in[to] = append(in[to], "[[\x02]] "+rel+"\x00"+from.entity.Name)
			from.links = append(from.links, to)
		case from != nil:
			out[from] = append(out[from], rel+" "+oneLine(r.To)+" (not in the graph)")
			p.BrokenLinks = append(p.BrokenLinks, BrokenLink{File: file, Line: r.Line, Target: r.To})
		case to != nil:
			in[to] = append(in[to], oneLine(r.From)+" (not in the graph) "+rel)
			p.BrokenLinks = append(p.BrokenLinks, BrokenLink{File: file, Line: r.Line, Target: r.From})
		default:
			p.BrokenLinks = append(p.BrokenLinks, BrokenLink{File: file, Line: r.Line, Target: r.From + " -> " + r.To})
		}
	}
	for _, d := range docs {
		d.rawBody = "" // built by mcpBodies once names are known
		d.extra = nil
		d.summary = ""
		d.aliases = append(out[d], "\x01")
		d.aliases = append(d.aliases, in[d]...)
	}
	return docs, nil
}

// oneLine folds line breaks of a source string to spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func mcpBodies(docs []*doc, _ *Plan) {
	byName := map[string]*doc{}
	for _, d := range docs {
		byName[d.entity.Name] = d
	}
	link := func(item string) string {
		f, name, ok := strings.Cut(item, "\x00")
		if !ok {
			return item
		}
		return strings.Replace(f, "\x02", linkTo(byName[name]), 1)
	}
	for _, d := range docs {
		var b strings.Builder
		b.WriteString("# " + oneLine(d.title) + "\n\n## Observations\n\n")
		if len(d.entity.Observations) == 0 {
			b.WriteString("(none)\n")
		}
		for _, o := range d.entity.Observations {
			b.WriteString("- " + indentContinuation(o) + "\n")
		}
		var outRel, inRel []string
		incoming := false
		for _, a := range d.aliases {
			if a == "\x01" {
				incoming = true
				continue
			}
			if incoming {
				inRel = append(inRel, link(a))
			} else {
				outRel = append(outRel, link(a))
			}
		}
		if len(outRel) > 0 {
			b.WriteString("\n## Relations\n\n")
			for _, r := range outRel {
				b.WriteString("- " + r + "\n")
			}
		}
		if len(inRel) > 0 {
			b.WriteString("\n## Incoming relations\n\n")
			for _, r := range inRel {
				b.WriteString("- " + r + "\n")
			}
		}
		d.body = b.String()
		d.aliases = nil
		summary := ""
		if len(d.entity.Observations) > 0 {
			summary = BoundSummary(d.entity.Observations[0])
		}
		if summary == "" {
			summary = BoundSummary(d.typ + ": " + d.title)
		}
		d.summary = summary
	}
}

// linkTo is the wikilink text of d's page: its stem, with the source
// name as the shown text when they differ.
func linkTo(d *doc) string {
	if d.stem == d.title || d.title == "" {
		return d.stem
	}
	return d.stem + "|" + strings.NewReplacer("[", "(", "]", ")", "|", "/", "\n", " ").Replace(d.title)
}

// indentContinuation keeps a multi-line observation in its list item.
func indentContinuation(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}

// ---- AGENTS.md / CLAUDE.md ----

var headingRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(#{1,6})[ \t]+(.*?)[ \t#]*$`) })

func agentsDocs(source, section string, p *Plan) ([]*doc, error) {
	data, err := readBounded(source, MaxNoteBytes, "file")
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, errorf("Cannot import %s: it is not valid UTF-8 text", source)
	}
	file := filepath.Base(source)
	text := strings.ReplaceAll(strings.TrimPrefix(string(data), "\ufeff"), "\r\n", "\n")
	lines := strings.Split(text, "\n")
	start, end := gitvault.ManagedBlockMarkers()
	want := pytext.Casefold(strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(section), "#")))
	managed := make([]bool, len(lines))
	in := false
	for i, l := range lines {
		if strings.Contains(l, start) {
			in = true
		}
		managed[i] = in
		if strings.Contains(l, end) {
			in = false
		}
	}
	from, level, heading := -1, 0, ""
	fence := ""
	var headings []string
	to := len(lines)
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		m := headingRe().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if from >= 0 && managed[i] {
			continue // the managed block's own headings end nothing: it is left out whole
		}
		if from >= 0 && len(m[1]) <= level {
			to = i
			break
		}
		if from < 0 {
			headings = append(headings, m[2])
			if pytext.Casefold(strings.TrimSpace(m[2])) == want {
				if managed[i] {
					return nil, errorf("Section %q of %s is inside the block git-echoes manages (%s ... %s): it is never imported", section, source, start, end)
				}
				from, level, heading = i, len(m[1]), strings.TrimSpace(m[2])
			}
		}
	}
	if from < 0 {
		return nil, errorf("%s has no section %q; its headings are: %s", source, section, strings.Join(headings, "; "))
	}
	var body []string
	dropped := false
	for i := from + 1; i < to; i++ {
		if managed[i] {
			dropped = true
			continue
		}
		body = append(body, lines[i])
	}
	if dropped {
		p.Skipped = append(p.Skipped, Problem{File: file, Line: from + 1, Message: "the managed git-echoes block inside the section was left out"})
	}
	sectionText := strings.Join(lines[from:to], "\n")
	if probs := scanSecrets(file, strings.Repeat("\n", from)+sectionText); len(probs) > 0 {
		return nil, secretError(source, probs)
	}
	content := strings.TrimSpace(strings.Join(body, "\n"))
	if content == "" {
		return nil, errorf("Section %q of %s is empty: nothing to import", heading, source)
	}
	d := &doc{key: string(KindAgentsMD) + ":" + file + "#" + heading, sourceFile: file, line: from + 1, wantName: heading,
		title: heading, typ: "guide", status: "active", memKind: "note", tags: []string{"agents-md"}}
	d.body = "# " + heading + "\n\n" + content + "\n"
	d.summary = SummaryOf(content)
	if d.summary == "" {
		d.summary = BoundSummary(heading)
	}
	return []*doc{d}, nil
}

// ---- Basic Memory / Obsidian ----

type sourceFile struct {
	rel  string
	abs  string
	link bool
}

var validKeyRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`) })

func noteDocs(source string, kind Kind, p *Plan) ([]*doc, map[string]*sourceFile, error) {
	files := map[string]*sourceFile{}
	var notes []string
	var probs []Problem
	root := source
	fi, err := lstat(source)
	if err != nil {
		return nil, nil, err
	}
	if fi.Mode().IsRegular() { // one note
		root = filepath.Dir(source)
		notes = []string{filepath.Base(source)}
	} else {
		err = walkNotes(source, func(rel string, isLink bool) bool {
			if isLink {
				p.Skipped = append(p.Skipped, Problem{File: rel, Message: "symbolic link: not followed"})
				files[rel] = &sourceFile{rel: rel, abs: filepath.Join(root, filepath.FromSlash(rel)), link: true}
				return true
			}
			if strings.EqualFold(path.Ext(rel), ".md") {
				notes = append(notes, rel)
			} else {
				files[rel] = &sourceFile{rel: rel, abs: filepath.Join(root, filepath.FromSlash(rel))}
			}
			return len(notes) <= MaxNotes
		})
		if err != nil {
			return nil, nil, err
		}
		if len(notes) > MaxNotes {
			return nil, nil, errorf("Cannot import %s: more than %d notes", source, MaxNotes)
		}
	}
	var docs []*doc
	for _, rel := range notes {
		data, err := readBounded(filepath.Join(root, filepath.FromSlash(rel)), MaxNoteBytes, "note")
		if err != nil {
			probs = append(probs, Problem{File: rel, Message: err.Error()})
			continue
		}
		if !utf8.Valid(data) {
			probs = append(probs, Problem{File: rel, Message: "not valid UTF-8 text"})
			continue
		}
		if s := scanSecrets(rel, string(data)); len(s) > 0 {
			probs = append(probs, s...)
			continue
		}
		n := ParseNote(string(data))
		stem := strings.TrimSuffix(path.Base(rel), path.Ext(rel))
		d := &doc{key: string(kind) + ":" + rel, sourceFile: rel, line: 1, rel: rel, rawBody: n.Body, memKind: "note"}
		title := ""
		if f, ok := n.Get("title"); ok {
			title = oneLine(f.Scalar())
		}
		if title == "" {
			title = FirstHeading(n.Body)
		}
		if title == "" {
			title = stem
		}
		d.title = title
		// Obsidian links by file name, Basic Memory by title (or permalink).
		d.wantName = stem
		if kind == KindBasicMemory {
			d.wantName = title
		}
		d.typ, d.status = "note", "active"
		seen := map[string]bool{}
		for _, f := range n.Fields {
			switch {
			case seen[f.Key]:
				p.Skipped = append(p.Skipped, Problem{File: rel, Message: "frontmatter field " + f.Key + " repeated: the later one was dropped"})
				continue
			case !validKeyRe().MatchString(f.Key):
				p.Skipped = append(p.Skipped, Problem{File: rel, Message: "frontmatter field " + f.Key + " is not a valid page key ([A-Za-z][A-Za-z0-9_-]*): dropped"})
				continue
			}
			seen[f.Key] = true
			switch f.Key {
			case "type":
				if v := oneLine(f.Scalar()); v != "" {
					d.typ = v
				}
			case "status":
				if v := oneLine(f.Scalar()); v != "" {
					d.status = v
				}
			case "summary":
				d.summary = BoundSummary(f.Scalar())
			case "stack":
				d.stack = reindent(f.Lines)
			case "imported_from", "import_sha256":
				// ours, from a page exported back: recomputed
			default:
				d.extra = append(d.extra, reindent(f.Lines)...)
				switch f.Key {
				case "tags":
					d.stackList = cleanTags(f.List())
					d.tags = slugTags(d.stackList)
				case "permalink":
					d.permalink = f.Scalar()
				case "aliases":
					d.aliases = f.List()
				}
			}
		}
		docs = append(docs, d)
	}
	if len(probs) > 0 {
		secret := false
		for _, pr := range probs {
			if strings.HasPrefix(pr.Message, "suspected credential") {
				secret = true
			}
		}
		if secret {
			return nil, nil, secretError(source, probs)
		}
		return nil, nil, &Error{Msg: fmt.Sprintf("Cannot import %s: %d note(s) cannot be read; nothing was written.", source, len(probs)), Problems: probs}
	}
	return docs, files, nil
}

func reindent(lines []string) []string {
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		if i > 0 && strings.TrimSpace(l) == "" {
			continue
		}
		if i > 0 && l != "" && l[0] != ' ' && l[0] != '\t' {
			l = "  " + l
		}
		out = append(out, strings.TrimRight(l, " \t"))
	}
	return out
}

func cleanTags(tags []string) []string {
	var out []string
	for _, t := range tags {
		t = strings.TrimPrefix(strings.TrimSpace(t), "#")
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// slugTags makes memory tags (lowercase slugs) of tags, dropping those
// that cannot be one.
func slugTags(tags []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, t := range tags {
		var b strings.Builder
		for _, r := range strings.ToLower(t) {
			switch {
			case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-':
				b.WriteRune(r)
			default:
				b.WriteByte('-')
			}
		}
		s := strings.Trim(b.String(), "-._")
		if len(s) > 64 {
			s = s[:64]
		}
		if s != "" && !seen[s] && len(out) < memory.MaxTags {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// noteBodies rewrites each note's links to the imported names and plans
// the attachments they embed.
func noteBodies(docs []*doc, files map[string]*sourceFile, opt Options, p *Plan) error {
	fold := func(s string) string { return pytext.Casefold(pytext.NFC(strings.TrimSpace(s))) }
	byPath, byStem, byTitle := map[string]*doc{}, map[string]*doc{}, map[string]*doc{}
	for _, d := range docs { // docs are in path order: the first wins
		rel := strings.TrimSuffix(d.rel, path.Ext(d.rel))
		set := func(m map[string]*doc, k string) {
			if _, ok := m[fold(k)]; !ok && k != "" {
				m[fold(k)] = d
			}
		}
		set(byPath, rel)
		set(byPath, d.permalink)
		set(byStem, path.Base(rel))
		set(byTitle, d.title)
		for _, a := range d.aliases {
			set(byTitle, a)
		}
	}
	byBase := map[string][]*sourceFile{}
	var rels []string
	for rel := range files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	for _, rel := range rels {
		byBase[fold(path.Base(rel))] = append(byBase[fold(path.Base(rel))], files[rel])
	}
	assetName := map[string]string{} // source rel -> asset name
	assetTaken := map[string]bool{}
	var probs []Problem
	for _, d := range docs {
		dir := path.Dir(d.rel)
		resolveAsset := func(target string) *sourceFile {
			if f, ok := files[path.Clean(path.Join(dir, target))]; ok {
				return f
			}
			if f, ok := files[path.Clean(target)]; ok {
				return f
			}
			if c := byBase[fold(path.Base(target))]; len(c) > 0 {
				return c[0]
			}
			return nil
		}
		d.body = RewriteLinks(d.rawBody, func(l Link) (string, bool) {
			if l.Target == "" {
				return "", false // [[#heading]] inside the note
			}
			ext := strings.ToLower(path.Ext(l.Target))
			if ext != "" && ext != ".md" {
				f := resolveAsset(l.Target)
				if f == nil {
					p.BrokenLinks = append(p.BrokenLinks, BrokenLink{File: d.rel, Line: l.Line, Target: l.Target})
					return "", false
				}
				if f.link {
					p.Skipped = append(p.Skipped, Problem{File: f.rel, Message: "attachment is a symbolic link: not followed, not copied"})
					return "", false
				}
				name, ok := assetName[f.rel]
				if !ok {
					base := sanitizeStem(path.Base(f.rel))
					name = base
					for i := 2; assetTaken[fold(name)]; i++ {
						e := path.Ext(base)
						name = strings.TrimSuffix(base, e) + " " + fmt.Sprint(i) + e
					}
					data, err := readBounded(f.abs, MaxAssetBytes, "attachment")
					if err != nil {
						probs = append(probs, Problem{File: f.rel, Message: err.Error()})
						return "", false
					}
					if s := scanSecrets(f.rel, string(data)); len(s) > 0 {
						probs = append(probs, s...)
						return "", false
					}
					assetTaken[fold(name)] = true
					assetName[f.rel] = name
					sum := sha256.Sum256(data)
					p.Assets = append(p.Assets, AssetWrite{File: "EchoesVault/assets/" + name, Source: f.rel, Bytes: len(data), SHA256: hex.EncodeToString(sum[:]), data: data})
				}
				return name, true
			}
			t := strings.TrimSuffix(l.Target, path.Ext(l.Target))
			if ext == "" {
				t = l.Target
			}
			// Like Obsidian: a note beside the linking one first, then a
			// vault path, then any note of that name (the first by path),
			// then a title or alias (Basic Memory links by title).
			if to, ok := byPath[fold(path.Clean(path.Join(dir, t)))]; ok {
				return to.stem, true
			}
			for _, m := range []map[string]*doc{byPath, byStem, byTitle} {
				if to, ok := m[fold(t)]; ok {
					return to.stem, true
				}
			}
			p.BrokenLinks = append(p.BrokenLinks, BrokenLink{File: d.rel, Line: l.Line, Target: l.Target})
			return "", false
		})
		for _, l := range Links(d.rawBody) {
			if to, ok := byStem[fold(l.Target)]; ok && to != d && !l.Embed {
				d.links = append(d.links, to)
			} else if to, ok := byTitle[fold(l.Target)]; ok && to != d && !l.Embed {
				d.links = append(d.links, to)
			}
		}
		if FirstHeading(d.body) == "" {
			d.body = "# " + d.title + "\n\n" + strings.TrimLeft(d.body, "\n")
		}
		if d.summary == "" {
			d.summary = SummaryOf(d.body) // with the links rewritten
		}
		if d.summary == "" {
			d.summary = BoundSummary(d.title)
		}
	}
	if len(probs) > 0 {
		return secretError(opt.Source, probs)
	}
	return nil
}

// ---- rendering and the change check ----

// quote renders a JSON-compatible double-quoted scalar (protocol §7.2),
// keeping non-ASCII text readable.
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

const hashKey = "import_sha256"

// renderPage renders d's complete page: the required keys, the preserved
// fields, imported_from, then import_sha256 over the text without that
// line.
func renderPage(d *doc) string {
	var fm []string
	fm = append(fm, "type: "+quote(d.typ))
	switch {
	case d.stack != nil:
		fm = append(fm, d.stack...)
	default:
		vals := make([]string, len(d.stackList))
		for i, s := range d.stackList {
			vals[i] = quote(s)
		}
		fm = append(fm, "stack: ["+strings.Join(vals, ", ")+"]")
	}
	fm = append(fm, "status: "+quote(d.status), "summary: "+quote(d.summary))
	fm = append(fm, d.extra...)
	fm = append(fm, "imported_from: "+quote(d.key))
	text := "---\n" + strings.Join(fm, "\n") + "\n---\n\n" + strings.TrimSpace(d.body) + "\n"
	return withHash(text)
}

// withHash inserts import_sha256, the SHA-256 of text, after imported_from.
func withHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	i := strings.Index(text, "\nimported_from: ")
	j := i + 1 + strings.IndexByte(text[i+1:], '\n') // the end of the imported_from line
	return text[:j+1] + hashKey + ": " + quote(hex.EncodeToString(sum[:])) + "\n" + text[j+1:]
}

// importState reads what the last import recorded in a page: its source
// and whether the page still holds exactly the text that import wrote.
func importState(text string) (source string, pristine bool) {
	fm, _, ok := splitFrontmatter(text)
	if !ok {
		return "", false
	}
	var recorded string
	for _, f := range parseFields(fm) {
		switch f.Key {
		case "imported_from":
			source = f.Scalar()
		case hashKey:
			recorded = f.Scalar()
		}
	}
	if recorded == "" {
		return source, false
	}
	line := hashKey + ": " + quote(recorded) + "\n"
	i := strings.Index(text, "\n"+line)
	if i < 0 {
		return source, false
	}
	without := text[:i+1] + text[i+1+len(line):]
	sum := sha256.Sum256([]byte(without))
	return source, hex.EncodeToString(sum[:]) == recorded
}

func planPages(docs []*doc, opt Options, p *Plan) error {
	var probs []Problem
	var conflicts []Problem
	for _, d := range docs {
		name, err := gitvault.ImportPageName(d.stem)
		if err != nil {
			probs = append(probs, Problem{File: d.sourceFile, Line: d.line, Message: gitvault.ErrorMessage(err)})
			continue
		}
		content, err := gitvault.ValidateImportContent(renderPage(d))
		if err != nil {
			probs = append(probs, Problem{File: d.sourceFile, Line: d.line, Message: "page " + name + ": " + gitvault.ErrorMessage(err)})
			continue
		}
		pw := PageWrite{File: "EchoesVault/pages/" + name, Name: name, Source: d.key, Action: "created", Content: content}
		cur, exists, err := opt.Engine.ReadPageText(name)
		if err != nil {
			probs = append(probs, Problem{File: pw.File, Message: gitvault.ErrorMessage(err)})
			continue
		}
		if exists {
			pw.sha = gitvault.PageTextHash(cur)
			src, pristine := importState(cur)
			switch {
			case cur == content:
				pw.Action = "unchanged"
			case src == d.key && pristine:
				pw.Action = "updated"
			case opt.Force:
				pw.Action = "forced"
			case src == d.key:
				conflicts = append(conflicts, Problem{File: pw.File, Message: "changed since the last import from " + d.key + ": not overwritten (--force replaces it)"})
			default:
				conflicts = append(conflicts, Problem{File: pw.File, Message: "exists and was not written by this import (" + orNone(src) + "): not overwritten (--force replaces it)"})
			}
		}
		p.Pages = append(p.Pages, pw)
	}
	if len(probs) > 0 {
		return &Error{Msg: fmt.Sprintf("Cannot import %s: %d page(s) are invalid; nothing was written.", opt.Source, len(probs)), Problems: probs}
	}
	if len(conflicts) > 0 {
		return &Error{Msg: fmt.Sprintf("Cannot import %s: %d page(s) changed since the last import; nothing was written. Re-run with --force to replace them.", opt.Source, len(conflicts)), Problems: conflicts}
	}
	for i := range p.Assets {
		a := &p.Assets[i]
		name := path.Base(a.File)
		cur, exists, err := opt.Engine.ReadAsset(name)
		if err != nil {
			return &Error{Msg: "Cannot import " + opt.Source + ": " + gitvault.ErrorMessage(err)}
		}
		switch {
		case !exists:
			a.Action = "created"
		case string(cur) == string(a.data):
			a.Action = "unchanged"
		case opt.Force:
			a.Action = "forced"
		default:
			conflicts = append(conflicts, Problem{File: a.File, Message: "exists with other content: not overwritten (--force replaces it)"})
		}
	}
	if len(conflicts) > 0 {
		return &Error{Msg: fmt.Sprintf("Cannot import %s: %d asset(s) already exist with other content; nothing was written. Re-run with --force to replace them.", opt.Source, len(conflicts)), Problems: conflicts}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "no imported_from"
	}
	return "imported_from " + s
}

// ---- memories ----

func planMemories(docs []*doc, opt Options, p *Plan) error {
	if opt.Roots == nil {
		return errorf("--into memories needs the memory vault's roots")
	}
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	ids := map[*doc]string{}
	for _, d := range docs {
		sum := sha256.Sum256([]byte(d.key + "\x00" + d.title + "\x00" + d.body + "\x00" + strings.Join(d.tags, ",")))
		ids[d] = memory.ImportedID(hex.EncodeToString(sum[:])[:24])
	}
	var probs []Problem
	for _, d := range docs {
		links := []string{}
		seen := map[string]bool{}
		for _, l := range d.links {
			if id := ids[l]; !seen[id] && len(links) < memory.MaxLinks {
				seen[id] = true
				links = append(links, id)
			}
		}
		title := d.title
		if r := []rune(title); len(r) > 190 {
			title = string(r[:190]) + "…"
		}
		in := memory.SaveInput{Title: title, Body: d.body, Kind: d.memKind, SourceHarness: SourceHarness, Tags: d.tags, Links: links, Now: now}
		m, err := memory.NewImportedMemory(in, ids[d])
		if err != nil {
			probs = append(probs, Problem{File: d.sourceFile, Line: d.line, Message: err.Error()})
			continue
		}
		dest := filepath.Join(opt.Roots.ScopeRoot(m.Scope), m.Kind+"s", m.ID+".md")
		action := "created"
		if _, err := lstat(dest); err == nil {
			action = "unchanged"
		}
		p.Memories = append(p.Memories, MemoryWrite{ID: m.ID, File: dest, Source: d.key, Action: action, Content: string(m.Serialize()), in: in})
	}
	if len(probs) > 0 {
		return &Error{Msg: fmt.Sprintf("Cannot import %s: %d memory(ies) are invalid; nothing was written.", opt.Source, len(probs)), Problems: probs}
	}
	return nil
}
