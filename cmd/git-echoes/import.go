package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/importer"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

func init() { registerCommand("import", runImport) }

const importUsage = `usage: git echoes import SOURCE
                         [--from mcp-memory|basic-memory|obsidian|agents-md]
                         [--section HEADING] [--into pages|memories] [--dry-run]
                         [--force] [--format json|text] [--workspace PATH]

Bring the memory you already have into the vault (issue 21).

SOURCE is one of (the kind is detected when unambiguous, else give --from):
  mcp-memory     memory.jsonl of @modelcontextprotocol/server-memory: one
                 page per entity (entityType -> type, observations -> the
                 body, relations -> [[wikilinks]] in both pages, named)
  basic-memory   a Basic Memory folder (.basic-memory/ or permalink
                 frontmatter): one page per note
  obsidian       an Obsidian vault (.obsidian/): one page per note
  agents-md      AGENTS.md or CLAUDE.md: only the section --section names,
                 never the block git-echoes manages

Notes keep their body, observation lines ("- [category] text #tag
(context)") and relation lines ("- relation_type [[Target]]") as written,
with links rewritten to the imported page names; title (or the first
heading, or the file name) names the page; type and status are kept
(default note, active); tags become stack and are kept; summary is the
first observation or paragraph, one line of at most 160 characters; other
frontmatter fields are kept. Embedded attachments (![[file.png]]) are
copied to EchoesVault/assets/. Symbolic links are never followed (reported).

Names are made valid page names (characters a page name or a wikilink
cannot hold become "-"); names that collide after case folding are
numbered in a fixed order; both are reported. A name no OS can check out
(CON, LPT1, ...) refuses the import.

Every page records imported_from and import_sha256 in its frontmatter. A
re-run writes the same bytes and duplicates nothing; a page changed since
the last import (or not written by it) is not overwritten without --force.
All pages are validated and hash-checked under the vault lock, then written,
then the index is rebuilt once. Lines holding a credential (the check gate's
scanner) refuse the import, listed by file and line, never shown or copied.

Options:
  --from KIND        the source kind (see above)
  --section HEADING  agents-md: the heading of the section to import
  --into WHERE       pages (default) or memories: one ECC memory per entity
                     or note in the project scope (trust "unreviewed",
                     source_harness git-echoes-import, links as memory ids,
                     ids derived from the content: a re-run duplicates nothing)
  --dry-run          print exactly what would be written; write nothing
  --force            replace pages and assets changed since the last import
  --format FORMAT    json (default) or text
  --workspace PATH   workspace directory (default: current directory)

Exit status: 0 imported (or planned, with --dry-run); 2 usage error, or the
import was refused (the reasons on stderr as {"ok": false, "error": ...,
"problems": [...]}); nothing was written.
`

type importReply struct {
	OK          bool                   `json:"ok"`
	DryRun      bool                   `json:"dryRun"`
	From        importer.Kind          `json:"from"`
	Into        importer.Into          `json:"into"`
	Source      string                 `json:"source"`
	Pages       []importer.PageWrite   `json:"pages"`
	Assets      []importer.AssetWrite  `json:"assets"`
	Memories    []importer.MemoryWrite `json:"memories"`
	Renamed     []importer.Renamed     `json:"renamed"`
	BrokenLinks []importer.BrokenLink  `json:"brokenLinks"`
	Skipped     []importer.Problem     `json:"skipped"`
	Notes       []importer.Problem     `json:"notes"`
	Index       *importIndex           `json:"index,omitempty"`
}

type importIndex struct {
	SHA256    string `json:"sha256"`
	PageCount int    `json:"pageCount"`
}

func importFail(stderr io.Writer, msg string, problems []importer.Problem) int {
	if problems == nil {
		io.WriteString(stderr, pyjson.Compact(gitvault.ErrorReply(msg, nil))+"\n")
		return exitError
	}
	out := struct {
		OK       bool               `json:"ok"`
		Error    string             `json:"error"`
		Problems []importer.Problem `json:"problems"`
	}{false, msg, problems}
	io.WriteString(stderr, houseJSON(out, pyjson.Compact))
	return exitError
}

// houseJSON renders v as every command's JSON is rendered (internal/pyjson:
// Python's separators and escapes), through encoding/json for the struct.
func houseJSON(v any, render func(pyjson.Value) string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	val, err := pyjson.Decode(b.String())
	if err != nil { // cannot happen: encoding/json wrote it
		return b.String()
	}
	return render(val) + "\n"
}

func runImport(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("import", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	from := fs.String("from", "", "")
	section := fs.String("section", "", "")
	into := fs.String("into", "pages", "")
	dryRun := fs.Bool("dry-run", false, "")
	force := fs.Bool("force", false, "")
	format := fs.String("format", "json", "")
	workspace := fs.String("workspace", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, importUsage)
			return exitOK
		}
		return importFail(stderr, "git echoes import: "+err.Error(), nil)
	}
	if fs.NArg() != 1 {
		return importFail(stderr, "git echoes import: give exactly one SOURCE (a memory.jsonl, a notes folder, AGENTS.md or CLAUDE.md)", nil)
	}
	if *format != "json" && *format != "text" {
		return importFail(stderr, "git echoes import: --format must be json or text, not "+pyjson.ReprString(*format), nil)
	}
	opt := importer.Options{Source: fs.Arg(0), Section: *section, Into: importer.Into(*into), Force: *force}
	if *from != "" {
		k, err := importer.ParseKind(*from)
		if err != nil {
			return importFail(stderr, "git echoes import: "+err.Error(), nil)
		}
		opt.Kind = k
	}
	eng, err := gitvault.Open(gitvault.Options{Workspace: *workspace})
	if err != nil {
		return fail(stderr, err)
	}
	if err := eng.WS.Gate(); err != nil {
		return fail(stderr, err)
	}
	opt.Engine = eng
	if opt.Into == importer.IntoMemories {
		roots, err := memory.ResolveRoots(memory.RootOptions{Cwd: eng.WS.Root})
		if err != nil {
			return importFail(stderr, err.Error(), nil)
		}
		opt.Roots = roots
	}
	plan, err := importer.PlanImport(opt)
	if err != nil {
		return importError(stderr, err)
	}
	reply := importReply{OK: true, DryRun: *dryRun, From: plan.Kind, Into: plan.Into, Source: plan.Source,
		Pages: plan.Pages, Assets: plan.Assets, Memories: plan.Memories, Renamed: plan.Renamed,
		BrokenLinks: plan.BrokenLinks, Skipped: plan.Skipped, Notes: plan.Notes}
	if !*dryRun {
		res, err := importer.Apply(plan, opt)
		if err != nil {
			return importError(stderr, err)
		}
		if plan.Into == importer.IntoPages {
			reply.Index = &importIndex{SHA256: res.IndexSHA256, PageCount: res.PageCount}
		}
		// Contents are printed only by a dry run: the files hold them now.
		for i := range reply.Pages {
			reply.Pages[i].Content = ""
		}
		for i := range reply.Memories {
			reply.Memories[i].Content = ""
		}
	}
	if *format == "text" {
		io.WriteString(stdout, importText(reply))
		return exitOK
	}
	io.WriteString(stdout, houseJSON(reply, pyjson.Pretty))
	return exitOK
}

func importError(stderr io.Writer, err error) int {
	var ie *importer.Error
	if errors.As(err, &ie) {
		return importFail(stderr, ie.Msg, ie.Problems)
	}
	var me *memory.Error
	if errors.As(err, &me) {
		return importFail(stderr, me.Message, nil)
	}
	return fail(stderr, err)
}

// importText is the --format text report; with --dry-run it prints every
// file it would write in full.
func importText(r importReply) string {
	var b strings.Builder
	verb := "imported"
	if r.DryRun {
		verb = "would import"
	}
	fmt.Fprintf(&b, "%s %s (%s) into %s\n", verb, r.Source, r.From, r.Into)
	for _, p := range r.Pages {
		fmt.Fprintf(&b, "%s %s <- %s\n", p.Action, p.File, p.Source)
		if r.DryRun && p.Action != "unchanged" {
			b.WriteString(p.Content)
			b.WriteString("\n")
		}
	}
	for _, a := range r.Assets {
		fmt.Fprintf(&b, "%s %s <- %s (%d bytes, sha256 %s)\n", a.Action, a.File, a.Source, a.Bytes, a.SHA256)
	}
	for _, m := range r.Memories {
		fmt.Fprintf(&b, "%s %s %s <- %s\n", m.Action, m.ID, m.File, m.Source)
		if r.DryRun && m.Action != "unchanged" {
			b.WriteString(m.Content)
			b.WriteString("\n")
		}
	}
	for _, n := range r.Renamed {
		fmt.Fprintf(&b, "renamed %q -> %q (%s): %s\n", n.From, n.To, n.Source, n.Reason)
	}
	for _, l := range r.BrokenLinks {
		fmt.Fprintf(&b, "broken link %s:%d %s (kept as written)\n", l.File, l.Line, l.Target)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(&b, "skipped %s: %s\n", s.File, s.Message)
	}
	for _, s := range r.Notes {
		fmt.Fprintf(&b, "note %s:%d: %s\n", s.File, s.Line, s.Message)
	}
	if r.Index != nil {
		fmt.Fprintf(&b, "index rebuilt: %d pages, sha256 %s\n", r.Index.PageCount, r.Index.SHA256)
	}
	return b.String()
}
