package main

import (
	"errors"
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault/review"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/gctune"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// The review commands (issue 9): diff and log. Both are read-only: they
// read commits from the object store (and, for diff --worktree, files on
// disk), write nothing and take no lock.

func init() {
	registerCommand("diff", runDiff)
	registerCommand("log", runLog)
}

const diffUsage = `usage: git echoes diff [REV_A [REV_B] | A..B | A...B] [--worktree]
                       [--format markdown|json|text] [--strict]
                       [--workspace PATH]

What changed in memory between two snapshots: pages added, removed,
renamed (git's rename detection: exact renames, then similarity >= 50%)
and updated, with the summary before -> after, status changes
(deprecations first), type and stack changes and lines added/removed;
daily entries added (time, kind, agent, first lines); ECC team memories
added or changed under .ecc/memory/team/ (title, kind, source harness,
targets, tags, links); and any project-scope memory file being committed
(a warning: project memories are personal).

It also says which pages cite code the change touches but were not
updated in it (memory-stale, the rule of check --rev A..B): the pages
whose blob is the same on both sides, whose citations at the merge base
of the two sides (sources: entries, inline code spans and links naming a
tracked path) the commits from that merge base to the second side
changed (cited lines: only when those lines changed) or deleted, with the
commits. A page updated in the change, or confirmed (git echoes
confirm), is not listed. Not computed against the work tree.

Revisions, as git reads them:
  (none)      the merge base of HEAD and its upstream, against HEAD
  A           A against HEAD
  A B, A..B   A against B (an empty side of .. is HEAD)
  A...B       the merge base of A and B, against B
  --worktree  compare with the work tree instead of HEAD (with at most one
              revision; none: the merge base with the upstream); new files
              count as git add -A would stage them (ignored files do not)

Options:
  --format FORMAT    markdown (for a pull-request comment or
                     $GITHUB_STEP_SUMMARY: a short table, then one <details>
                     block per page, bounded at 60,000 bytes with an "N more"
                     line), json (everything, including the changed paths as
                     git diff --name-status -M), or text (default)
  --strict           exit 1 when a page is memory-stale
  --workspace PATH   workspace directory (default: current directory)

Read-only: reads the object store, writes nothing, takes no lock.

Exit status:
  0  the diff was printed (whatever it contains)
  1  with --strict: a page cites code the change touches and was not updated
  2  usage error, unknown revision, no upstream, a shallow clone without
     the merge base, or an unreadable repository
`

const logUsage = `usage: git echoes log PAGE|MEMORY-ID [--follow] [--limit N] [--rev REV]
                      [--format text|json] [--workspace PATH]

The history of one page (a page file name such as auth.md, or its path
EchoesVault/pages/auth.md) or one ECC memory (its id; the memory is found
under .ecc/memory/ in REV): for each commit that changed it, newest first,
the commit, author date, author, the agent, the summary (a memory's title)
at that commit, and the lines added and removed. It answers "who taught
the agents this, and when".

The agent is, in order: the commit's "Agent:" trailer; else the agents of
the daily entries the commit added (their file names carry it); else the
names of its "Co-authored-by:" trailers; else none.

Commits are chosen as git log -- PATH chooses them (history
simplification: a merge that kept one parent's version is not shown).

Options:
  --follow           continue across renames, as git log --follow
  --limit N          at most N commits (default 100, 0: no limit)
  --rev REV          start from REV instead of HEAD
  --format FORMAT    text (default) or json
  --workspace PATH   workspace directory (default: current directory)

Read-only: reads the object store, writes nothing, takes no lock.

Exit status:
  0  the history was printed (possibly empty)
  2  usage error, unknown revision, a path outside the vault, a name that
     is not a page, an unknown memory id, or an unreadable repository
`

func reviewUsageError(stderr io.Writer, usage, cmd, msg string) int {
	fmt.Fprintf(stderr, "%sgit echoes %s: error: %s\n", usage, cmd, msg)
	return exitUsage
}

// reviewFail reports an operational failure as every fail-closed command
// does: the JSON error on stderr, exit 2.
func reviewFail(stderr io.Writer, err error) int {
	io.WriteString(stderr, pyjson.Compact(gitvault.ErrorReply(gitvault.ErrorMessage(err), nil))+"\n")
	return exitError
}

func runDiff(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	// One answer, then exit: the heap a cold freshness check grows to
	// may be populated ahead (gctune.PrefaultHeap).
	gctune.AllowPrefault()
	fs := pflag.NewFlagSet("diff", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	worktree := fs.Bool("worktree", false, "")
	format := fs.String("format", "text", "")
	strict := fs.Bool("strict", false, "")
	workspace := fs.String("workspace", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, diffUsage)
			return exitOK
		}
		return reviewUsageError(stderr, diffUsage, "diff", err.Error())
	}
	switch *format {
	case "text", "json", "markdown":
	default:
		return reviewUsageError(stderr, diffUsage, "diff", "--format must be markdown, json or text, not "+pyjson.ReprString(*format))
	}
	rr, err := review.ParseRevRange(fs.Args(), *worktree)
	if err != nil {
		return reviewUsageError(stderr, diffUsage, "diff", gitvault.ErrorMessage(err))
	}
	eng, err := gitvault.Open(gitvault.Options{Workspace: *workspace})
	if err != nil {
		return reviewFail(stderr, err)
	}
	res, err := review.Diff(eng, rr)
	if err != nil {
		return reviewFail(stderr, err)
	}
	if err := review.AddStale(eng, res); err != nil {
		return reviewFail(stderr, err)
	}
	switch *format {
	case "json":
		io.WriteString(stdout, pyjson.Pretty(res.JSON()))
	case "markdown":
		io.WriteString(stdout, res.Markdown(review.MarkdownLimit))
	default:
		io.WriteString(stdout, res.Text())
	}
	if *strict && len(res.Stale) > 0 {
		return exitFindings
	}
	return exitOK
}

func runLog(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("log", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	follow := fs.Bool("follow", false, "")
	limit := fs.Int("limit", 100, "")
	rev := fs.String("rev", "HEAD", "")
	format := fs.String("format", "text", "")
	workspace := fs.String("workspace", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, logUsage)
			return exitOK
		}
		return reviewUsageError(stderr, logUsage, "log", err.Error())
	}
	switch {
	case fs.NArg() == 0:
		return reviewUsageError(stderr, logUsage, "log", "give a page name or a memory id")
	case fs.NArg() > 1:
		return reviewUsageError(stderr, logUsage, "log", "unexpected arguments: "+strings.Join(fs.Args()[1:], " "))
	case *limit < 0:
		return reviewUsageError(stderr, logUsage, "log", "--limit must be 0 or more")
	case *rev == "":
		return reviewUsageError(stderr, logUsage, "log", "--rev needs a revision")
	}
	switch *format {
	case "text", "json":
	default:
		return reviewUsageError(stderr, logUsage, "log", "--format must be text or json, not "+pyjson.ReprString(*format))
	}
	eng, err := gitvault.Open(gitvault.Options{Workspace: *workspace})
	if err != nil {
		return reviewFail(stderr, err)
	}
	// A walk keeps a few hundred bytes per commit: collect rarely while
	// that is small (go-git's history: 2-4 MB live, two collections, a
	// fifth of the CPU), as usual past 16 MiB.
	gctune.ShortLived(400, 16<<20)
	res, err := review.Log(eng, review.LogOptions{Target: fs.Arg(0), Follow: *follow, Limit: *limit, Rev: *rev})
	if err != nil {
		return reviewFail(stderr, err)
	}
	if *format == "json" {
		io.WriteString(stdout, pyjson.Pretty(res.JSON()))
	} else {
		io.WriteString(stdout, res.Text())
	}
	return exitOK
}
