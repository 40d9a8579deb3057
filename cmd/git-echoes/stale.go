package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/freshness"
	"github.com/git-echoes/git-echoes/internal/gctune"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// Memory freshness (issue 18): git echoes stale reports which pages (and
// memories) cite code that changed since they were written; git echoes
// confirm records that a page was re-checked. stale is read-only.

func init() {
	registerCommand("stale", runStale)
	registerCommand("confirm", runConfirm)
}

const staleUsage = `usage: git echoes stale [PAGE...] [--rev REV] [--memories]
                        [--format text|json|markdown] [--strict]
                        [--workspace PATH]

Which pages cite code that changed since they were written. A citation is
a frontmatter "sources:" entry (path, path:LINE or path:START-END, a file
or a directory, at most 64 entries) or, in the page body, an inline code
span or a Markdown link that names a file or directory tracked at the
page's anchor; nothing else in the prose is a citation.

The anchor is the last commit that changed the page (a rename of the page
with its content intact does not count), or the commit of its verified:
field when that is later (git echoes confirm); a page with uncommitted
changes is anchored at the work tree: it was just written against the
code you have. An ECC memory (--memories, the body only) is anchored at
the commit HEAD was at its updated_at.

Verdicts, per citation, then per page (the worst of its citations):
  fresh     unchanged since the anchor (cited lines: every one of them is
            still there, as git blame --reverse follows them; an edit
            above them only moves them, and their new range is shown)
  moved     renamed with its content (or its cited lines) intact
  drifted   changed: the commits that changed it are listed (at most 10,
            with the count), with subject, author, date and lines
  missing   deleted, or not there at the anchor
  uncited   the page cites nothing

Options:
  --rev REV          read the vault at REV and check against REV (default:
                     the work tree against HEAD)
  --memories         also check the ECC memories under .ecc/memory/
  --format FORMAT    text (default), json (everything) or markdown (a
                     table of what is not fresh, for a pull request)
  --strict           exit 1 when anything is drifted or missing
  --workspace PATH   workspace directory (default: current directory)

Reads the object store and the pages and takes no lock; the only files
it writes are its caches in .git/echoes/stale (never part of a tree;
deleting them loses nothing): the verdicts, keyed by the target commit
and each page's path and text, and the last answer in each format, keyed
by the format, the build and those keys (a warm run prints it as it is).

Exit status:
  0  the report was printed
  1  with --strict: a citation is drifted or missing
  2  usage error, unknown page or revision, or an unreadable repository
     (a one-line JSON error on stderr)
`

const confirmUsage = `usage: git echoes confirm PAGE [--workspace PATH]

Record that PAGE was re-checked against the code at HEAD and is still
true: sets its frontmatter field verified: "<HEAD commit id> <UTC time>"
through the locked, hash-checked page writer (the one upsert uses), so
the change is reviewed and committed like any page edit. git echoes stale
then anchors the page at that commit (at the work tree until the change
is committed). The protocol keeps additional frontmatter fields as they
are and the index ignores them, so the page stays valid and its index
line does not change.

Exit status:
  0  the page was written; {"ok": true, "page", "verified", "sha256"} on stdout
  2  usage error, unknown page, no commit yet, a concurrent change, or a
     write that failed (a one-line JSON error on stderr; nothing written)
`

// staleFail is the house JSON error (exit 2) for bad input and failures.
func staleFail(stderr io.Writer, msg string) int {
	io.WriteString(stderr, pyjson.Compact(gitvault.ErrorReply(msg, nil))+"\n")
	return exitError
}

func runStale(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	// One answer, then exit: the heap a cold freshness check grows to
	// may be populated ahead (gctune.PrefaultHeap).
	gctune.AllowPrefault()
	fs := pflag.NewFlagSet("stale", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	rev := fs.String("rev", "", "")
	memories := fs.Bool("memories", false, "")
	format := fs.String("format", "text", "")
	strict := fs.Bool("strict", false, "")
	workspace := fs.String("workspace", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, staleUsage)
			return exitOK
		}
		return staleFail(stderr, "stale: "+err.Error())
	}
	switch *format {
	case "text", "json", "markdown":
	default:
		return staleFail(stderr, "stale: --format must be text, json or markdown, not "+pyjson.ReprString(*format))
	}
	if fs.Changed("rev") && strings.TrimSpace(*rev) == "" {
		return staleFail(stderr, "stale: --rev needs a revision")
	}
	eng, err := gitvault.Open(gitvault.Options{Workspace: *workspace})
	if err != nil {
		return reviewFail(stderr, err)
	}
	stale, writeErr, err := freshness.Rendered(eng, freshness.Selection{Rev: *rev, Pages: fs.Args(), Memories: *memories},
		staleRenderers[*format], stdout)
	if err != nil {
		return staleFail(stderr, err.Error())
	}
	if writeErr != nil {
		// The report is right; only the next run is slower.
		fmt.Fprintf(stderr, "git echoes stale: warning: cannot write the verdict cache: %s\n", writeErr)
	}
	if *strict && stale {
		return exitFindings
	}
	return exitOK
}

// staleRenderers are the formats of git echoes stale, by --format. A
// warm run prints the answer a run with the same key printed before
// (freshness.Rendered): the answer of each is a function of the target
// and the reports alone.
var staleRenderers = map[string]freshness.Renderer{
	"json":     {Name: "json", Render: freshness.PrettyJSON},
	"markdown": {Name: "markdown", Render: func(t string, r []freshness.Report) []byte { return []byte(freshness.Markdown(t, r)) }},
	"text":     {Name: "text", Render: func(t string, r []freshness.Report) []byte { return []byte(freshness.Text(t, r)) }},
}

func runConfirm(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("confirm", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	workspace := fs.String("workspace", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, confirmUsage)
			return exitOK
		}
		return staleFail(stderr, "confirm: "+err.Error())
	}
	if fs.NArg() != 1 {
		return staleFail(stderr, "confirm: give exactly one page")
	}
	p, err := freshness.PageArg(fs.Arg(0))
	if err != nil {
		return staleFail(stderr, err.Error())
	}
	name := strings.TrimPrefix(p, freshness.PagesDir+"/")
	eng, err := gitvault.Open(gitvault.Options{Workspace: *workspace})
	if err != nil {
		return reviewFail(stderr, err)
	}
	if !eng.WS.InGit {
		return staleFail(stderr, "Not inside a Git work tree: "+eng.WS.Root)
	}
	repo, err := gitrepo.Open(eng.WS.Root)
	if err != nil {
		return staleFail(stderr, "Cannot read the Git repository: "+err.Error())
	}
	head, err := repo.ResolveCommit("HEAD")
	if err != nil {
		return staleFail(stderr, "No commit yet: a page is confirmed against a commit")
	}
	rp, err := eng.ReadPage(name)
	if err != nil {
		return reviewFail(stderr, err)
	}
	date := time.Now().UTC().Format(time.RFC3339)
	text, err := freshness.SetVerified(rp.Content, head, date)
	if err != nil {
		return staleFail(stderr, "Cannot confirm "+name+": "+err.Error())
	}
	payload := pyjson.NewObj().Set("filename", pyjson.Str(name)).Set("content", pyjson.Str(text)).
		Set("expectedSha256", pyjson.Str(rp.SHA256))
	res, err := eng.Upsert(func() ([]byte, error) { return []byte(pyjson.Compact(pyjson.ObjectValue(payload))), nil })
	if err != nil {
		return reviewFail(stderr, err)
	}
	out := pyjson.NewObj().Set("ok", pyjson.Boolean(true)).Set("page", pyjson.Str(p)).
		Set("verified", pyjson.Str(head+" "+date))
	if res.Kind == pyjson.Object {
		if h, ok := res.Obj.Get("sha256"); ok {
			out.Set("sha256", h)
		}
	}
	io.WriteString(stdout, pyjson.Compact(pyjson.ObjectValue(out))+"\n")
	return exitOK
}
