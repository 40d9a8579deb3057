package main

import (
	"errors"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/find"
	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

func init() { registerCommand("find", runFind) }

const findUsage = `usage: git echoes find QUERY [--daily] [--scope SCOPE] [--type TYPE]
                       [--stack STACK] [--status STATUS] [--kind KIND]
                       [--tag TAG] [--since DATE] [--limit N] [--budget N]
                       [--format json|text|markdown] [--rebuild]
                       [--workspace PATH]
       git echoes find --rebuild [--scope SCOPE] [--workspace PATH]

Ranked search (BM25) over the EchoesVault pages (title line, summary and
body), the daily entries with --daily, and the ECC memories (title, body and
tags; the project and team scopes, the user scope only with --scope user,
only active memories unless --status asks for others). Words are matched
after Unicode normalization (NFKC), case folding and accent folding, split
at punctuation, hyphens, camelCase and snake_case (the whole word is kept
too) and reduced to their English stem, so "retries" finds "retrying",
"rate-limit" finds "rate limit" and "RateLimit", and "cafe" finds its
accented spelling.
Summary and title weigh more than the body. Deprecated pages rank below
their replacements and say so. The literal "search" command is unchanged.

QUERY (several arguments are joined with spaces; put the query after "--"
when it starts with "-"):
  word               any word may match; documents matching more rank higher
  "two words"        a phrase: the words in this order
  -word, -"a b"      exclude documents containing the word or phrase
  word*              a prefix (at least 2 letters)

Filters (each may be repeated: any of the values):
  --type TYPE        page type (pages only)
  --stack STACK      one item of a page's stack (pages only)
  --status STATUS    page or memory status (memories: active unless given)
  --kind KIND        memory kind (memories only)
  --tag TAG          memory tag (memories only)
  --since DATE       pages modified, daily entries dated, memories updated
                     on or after DATE (YYYY-MM-DD)
  --scope SCOPE      memory scope: project, team or user (default project
                     and team)
  --daily            include the daily entries

Output:
  --format FORMAT    json (default), text or markdown: each hit names its file
                     (or memory id), score, summary and best-matching lines
                     with their line numbers (for memories, lines of the body)
  --limit N          at most N hits (1..100, default 10)
  --budget N         the whole answer in at most N characters: whole hits are
                     left out from the end, and the answer says how many
  --rebuild          build the index from scratch first (alone: only rebuild)
  --workspace PATH   workspace directory (default: current directory)

The index is derived and local: under the Git directory (.git/echoes/find,
shared by linked worktrees, one index per work tree) or, outside Git, under
.echoes-vault/cache/find. It is never committed and never authoritative:
every query revalidates it by file identity (path, size, mtime, ctime,
inode) and re-indexes only what changed; an index that is corrupt, foreign
or from another version is rebuilt; deleting it loses nothing. hydrate
refreshes an existing index (it never builds one). A page that does not
parse is skipped and reported (search still scans it).

Exit status: 0 answered (with or without hits); 2 usage error (empty or
oversized query, unbalanced quote, unknown option or filter value, budget
too small) or the vault could not be used.
`

// findFail reports a refused invocation as one JSON line on stderr.
func findFail(stderr io.Writer, msg string) int {
	io.WriteString(stderr, pyjson.Compact(gitvault.ErrorReply(msg, nil))+"\n")
	return exitUsage
}

func runFind(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("find", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var opt find.Options
	fs.BoolVar(&opt.Daily, "daily", false, "")
	fs.StringArrayVar(&opt.Scopes, "scope", nil, "")
	fs.StringArrayVar(&opt.Types, "type", nil, "")
	fs.StringArrayVar(&opt.Stacks, "stack", nil, "")
	fs.StringArrayVar(&opt.Statuses, "status", nil, "")
	fs.StringArrayVar(&opt.Kinds, "kind", nil, "")
	fs.StringArrayVar(&opt.Tags, "tag", nil, "")
	fs.StringVar(&opt.Since, "since", "", "")
	fs.BoolVar(&opt.Rebuild, "rebuild", false, "")
	limit := fs.String("limit", "10", "")
	budget := fs.String("budget", "0", "")
	format := fs.String("format", "json", "")
	workspace := fs.String("workspace", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, findUsage)
			return exitOK
		}
		return findFail(stderr, "git echoes find: "+err.Error())
	}
	var err error
	if opt.Limit, err = strconv.Atoi(*limit); err != nil {
		return findFail(stderr, "git echoes find: --limit must be a number, not "+pyjson.ReprString(*limit))
	}
	n, err := strconv.Atoi(*budget)
	if err != nil || n < 0 {
		return findFail(stderr, "git echoes find: --budget must be a number of characters, not "+pyjson.ReprString(*budget))
	}
	switch *format {
	case "json", "text", "markdown":
	default:
		return findFail(stderr, "git echoes find: --format must be json, text or markdown, not "+pyjson.ReprString(*format))
	}
	opt.Query = strings.Join(fs.Args(), " ")
	eng, err := gitvault.Open(gitvault.Options{Workspace: *workspace})
	if err != nil {
		return fail(stderr, err)
	}
	if opt.Rebuild && fs.NArg() == 0 {
		rep, err := find.Rebuild(eng.WS, opt.Scopes)
		if err != nil {
			return findError(stderr, err)
		}
		io.WriteString(stdout, pyjson.Pretty(pyjson.ObjectValue(pyjson.NewObj().Set("ok", pyjson.Boolean(true)).
			Set("rebuilt", pyjson.Boolean(rep.Rebuilt)).Set("indexed", pyjson.Int(int64(rep.Updated))))))
		return exitOK
	}
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		// A warm query allocates a few megabytes in a process that lives
		// for tens of milliseconds: at the default setting the collector
		// ran several times during it (issue 19, "find warm query, whole
		// process": about a tenth of it). Raised for the answer from the
		// index as it stands, put back before a sync or a build, whose
		// heap grows with the vault (at 400 a 100,000-page first build
		// peaked at 232 MB instead of 105 MB).
		prev := debug.SetGCPercent(400)
		opt.Syncing = func() { debug.SetGCPercent(prev) }
	}
	res, err := find.Find(eng.WS, opt)
	if err != nil {
		return findError(stderr, err)
	}
	out, err := res.Render(*format, n)
	if err != nil {
		return findError(stderr, err)
	}
	io.WriteString(stdout, out)
	return exitOK
}

func findError(stderr io.Writer, err error) int {
	var qe *find.QueryError
	if errors.As(err, &qe) {
		return findFail(stderr, "git echoes find: "+qe.Msg)
	}
	return fail(stderr, err)
}

// refreshFindIndex brings the ranked-search index up to date after a
// hydrate (issue 12). The index is a cache: a failure here changes
// nothing hydrate reports, and the next find rebuilds what it needs. Only
// an index under the Git directory is refreshed: outside Git it would live
// in the workspace's .echoes-vault/, and hydrate may write nothing there but
// the index and the state (protocol §12.5.1); the next find brings it up to
// date instead. Only an index that exists is refreshed: building one from
// nothing (seconds on a large vault) is the first find's work, not a cost
// every hydrate of a repository that never used find should pay.
func refreshFindIndex(ws *gitvault.Workspace) {
	if !ws.InGit {
		return
	}
	if dir, err := find.CacheDir(ws); err != nil || !fsx.IsDirNoFollow(dir) {
		return
	}
	_ = find.Refresh(ws)
}
