package main

import (
	"errors"
	"fmt"
	"github.com/git-echoes/git-echoes/gitvault/gate"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/gctune"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

func init() { registerCommand("check", runCheck) }

const checkUsage = `usage: git echoes check [--staged | --rev REV | --rev A..B]
                        [--format text|json|github|codequality] [--strict]
                        [--require-tracked] [--workspace PATH]

Fail-closed gate for EchoesVault and ECC memory content: validates every page
(frontmatter, summary), page-name collisions, Git conflict markers in
EchoesVault/**/*.md and team memories, unmerged vault and memory paths, the
protocol marker, vault paths that cannot exist on Windows (reserved names such
as CON or aux.png, the characters <>:"|?*, control characters, a trailing '.'
or space; rule windows-name, reported on every OS), page names holding a
control, line-separator or bidi-control character (rule unsafe-name: the index
and the session context copy them verbatim), and local-only files
(EchoesVault/index.md, .echoes-vault/state.json, .echoes-vault/lock, legacy
state files, the runtime's cache, temporary files of interrupted writes) that
are tracked or committed. It also scans EchoesVault Markdown files (pages,
daily entries, raw sources; not the generated index.md) and team memories for
known credential shapes (the finding names the file, line and family, never
the value), validates the team memories under .ecc/memory/team/ as the memory
readers and doctor read them, refuses project-scope memories
(.ecc/memory/project/) in the index or a commit, and reports [[wikilinks]] to
missing pages and ![[embeds]] missing from EchoesVault/assets/ (links in code
spans and fenced code blocks are not links). A page's sources: entries that
are not citations (absolute, leaving the repository with .., empty, not a
string, a list over 64 entries) are warnings; the page stays valid. With --rev
A..B it also reports the pages that cite code the range changed but were not
updated in it (memory-stale, see below). A repository without a vault passes,
so the gate can run everywhere.

Rules and severities (errors fail the gate; warnings are reported, as
::warning annotations with --format github, and fail only with --strict):
  page-invalid              error    a page's frontmatter or summary is invalid
  name-collision            error    page names equal after NFC and case folding
  conflict-marker           error    an unresolved Git conflict marker
  unmerged-path             error    an unresolved merge in the index
  marker-invalid            error    the protocol marker is unreadable or
                                     unsupported
  marker-missing            error    a vault without its protocol marker
  windows-name              error    a vault or team memory path that cannot
                                     exist on Windows
  unsafe-name               error    a page name with control or bidi characters
  local-only-committed      error    a local-only file is tracked or committed
  untracked-durable         error    a durable vault file Git does not track
                                     (--require-tracked)
  secret                    error    a credential (gitleaks' rule set and the
                                     memory vault's families) in a vault
                                     file or a team memory; accept one in
                                     .gitleaksignore or .gitleaks.toml
  memory-invalid            error    a team memory the readers skip (grammar,
                                     location, quarantined secret)
  memory-duplicate-id       error    two team memories with one id
  memory-truncated          error    the team vault exceeds the memory scan's
                                     budget, so every memory read is incomplete
  memory-project-committed  error    a project-scope memory is tracked or
                                     committed
  memory-broken-link        warning  a team memory links to an id no team
                                     memory holds
  memory-symlink            warning  a symbolic link in the team memory vault
  wikilink-missing          warning  a [[link]] to a page that does not exist
  asset-missing             warning  an ![[embed]] missing from
                                     EchoesVault/assets/
  source-invalid            warning  a sources: entry that is not a citation
                                     (the entry is ignored, the page valid)
  memory-stale              warning  --rev A..B: a page not updated in the range
                                     cites code the range changed (the cited
                                     path, the range's commits)

Sources (one snapshot, read-only):
  (default)          the work tree; local-only files are checked against the
                     index
  --staged           the blobs of the Git index ($GIT_INDEX_FILE when set):
                     exactly what the next commit will contain (pre-commit hook)
  --rev REV          the tree of a commit, from the object store (CI gate)
  --rev A..B         the tree of B, and memory-stale over the range (A...B is
                     the same): a page counts when its blob is the same at the
                     merge base of A and B and at B, and one of its citations
                     at the merge base (sources: entries, inline code spans and
                     links naming a tracked path) was changed by the commits
                     from there to B (cited lines: only when those lines
                     changed, as git blame --reverse follows them) or deleted;
                     a rename with the content intact does not count. Updating
                     the page or git echoes confirm PAGE in the range clears it

Options:
  --format FORMAT    text (default), json, github (workflow-command
                     annotations), or codequality (a GitLab Code Quality
                     report: a JSON array of description, check_name,
                     fingerprint, severity and location; stable
                     fingerprints, see docs/ci.md)
  --strict           warnings fail the gate too
  --require-tracked  also fail when durable vault files in the work tree are not
                     tracked by Git (not with --rev)
  --workspace PATH   workspace directory (default: current directory)

Exit status:
  0  no error findings (warnings allowed unless --strict), or no vault here
  1  findings: the snapshot must not be committed or merged as is
  2  usage error, or the snapshot could not be read (not a Git work tree,
     unreadable repository, unknown revision): the gate fails closed
`

func checkUsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "%sgit echoes check: error: %s\n", checkUsage, msg)
	return exitUsage
}

func runCheck(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	// One answer, then exit: the heap a cold freshness check grows to
	// may be populated ahead (gctune.PrefaultHeap).
	gctune.AllowPrefault()
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	staged := fs.Bool("staged", false, "")
	rev := fs.String("rev", "", "")
	format := fs.String("format", "text", "")
	requireTracked := fs.Bool("require-tracked", false, "")
	strict := fs.Bool("strict", false, "")
	workspace := fs.String("workspace", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, checkUsage)
			return exitOK
		}
		return checkUsageError(stderr, err.Error())
	}
	if fs.NArg() > 0 {
		return checkUsageError(stderr, "unexpected arguments: "+strings.Join(fs.Args(), " "))
	}
	opt := gate.CheckOptions{RequireTracked: *requireTracked, Strict: *strict}
	switch {
	case *staged && fs.Changed("rev"):
		return checkUsageError(stderr, "--staged and --rev are mutually exclusive")
	case *staged:
		opt.Source = gate.CheckStaged
	case fs.Changed("rev"):
		if *rev == "" {
			return checkUsageError(stderr, "--rev needs a revision")
		}
		if *requireTracked {
			return checkUsageError(stderr, "--require-tracked compares the work tree with the index; it cannot be combined with --rev")
		}
		opt.Source, opt.Rev = gate.CheckRev, *rev
	}
	switch *format {
	case "text", "json", "github", "codequality":
	default:
		return checkUsageError(stderr, "--format must be text, json, github or codequality, not "+pyjson.ReprString(*format))
	}
	eng, err := gitvault.Open(gitvault.Options{Workspace: *workspace})
	if err == nil {
		var res *gate.CheckResult
		if res, err = gate.Check(eng, opt); err == nil {
			io.WriteString(stdout, renderCheck(res, *format))
			if res.OK() {
				return exitOK
			}
			return exitFindings
		}
	}
	// Operational failure: one clear line, and in CI an annotation too, so
	// a misconfigured gate is as visible as a failing one.
	msg := gitvault.ErrorMessage(err)
	switch *format {
	case "json":
		io.WriteString(stdout, pyjson.Pretty(gitvault.ErrorReply(msg, pyjson.NewObj().Set("source", pyjson.Str(opt.Source.String())))))
	case "github":
		fmt.Fprintf(stdout, "::error title=git echoes check::%s\n", escapeGitHubData(msg))
	}
	fmt.Fprintf(stderr, "git echoes check: error: %s\n", firstLine(msg))
	return exitStatus(err)
}

func firstLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i]
	}
	return s
}

// sourceLabel names the snapshot in human output.
func sourceLabel(res *gate.CheckResult) string {
	switch res.Source {
	case gate.CheckStaged:
		return "staged index"
	case gate.CheckRev:
		return "revision " + res.Rev
	}
	return "work tree"
}

func renderCheck(res *gate.CheckResult, format string) string {
	switch format {
	case "json":
		return pyjson.Pretty(res.JSON())
	case "codequality":
		return renderCodeQuality(res)
	case "github":
		var b strings.Builder
		for _, f := range res.Findings {
			b.WriteString(githubAnnotation(f))
		}
		b.WriteString(checkSummary(res))
		return b.String()
	}
	var b strings.Builder
	for _, f := range res.Findings {
		// Errors keep the bytes they always had; warnings say so.
		sev := ""
		if f.Severity() == gate.SeverityWarning {
			sev = "warning: "
		}
		if f.Line > 0 {
			fmt.Fprintf(&b, "%s:%d: %s%s: %s\n", f.Path, f.Line, sev, f.Rule, f.Message)
		} else {
			fmt.Fprintf(&b, "%s: %s%s: %s\n", f.Path, sev, f.Rule, f.Message)
		}
	}
	b.WriteString(checkSummary(res))
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func checkSummary(res *gate.CheckResult) string {
	warnings := res.Warnings()
	memories := ""
	if res.Memories > 0 {
		memories = ", " + plural(res.Memories, "team memory file", "team memory files")
	}
	switch {
	case !res.Vault && len(res.Findings) == 0 && res.Memories == 0:
		return "git echoes check: no EchoesVault here (" + sourceLabel(res) + ")\n"
	case len(res.Findings) == 0:
		return fmt.Sprintf("git echoes check: ok (%s, %s%s)\n", sourceLabel(res), plural(res.Pages, "page", "pages"), memories)
	case res.OK():
		return fmt.Sprintf("git echoes check: ok with %s (%s, %s%s)\n",
			plural(warnings, "warning", "warnings"), sourceLabel(res), plural(res.Pages, "page", "pages"), memories)
	}
	found := plural(len(res.Findings), "finding", "findings")
	if warnings > 0 {
		found += " (" + plural(warnings, "warning", "warnings")
		if res.Strict {
			found += ", failing with --strict"
		}
		found += ")"
	}
	return fmt.Sprintf("git echoes check: %s in the %s; fix them before committing\n", found, sourceLabel(res))
}

// githubAnnotation renders one finding as a GitHub Actions workflow command:
// ::error for errors, ::warning for warnings.
func githubAnnotation(f gate.Finding) string {
	props := "file=" + escapeGitHubProperty(f.Path)
	if f.Line > 0 {
		props += fmt.Sprintf(",line=%d", f.Line)
	}
	props += ",title=" + escapeGitHubProperty(f.Rule)
	return "::" + f.Severity().String() + " " + props + "::" + escapeGitHubData(f.Message) + "\n"
}

// escapeGitHubData escapes a workflow command's message as the Actions
// toolkit's escapeData does.
func escapeGitHubData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeGitHubProperty escapes a property value as the toolkit's
// escapeProperty does: also ':' and ',', which delimit properties.
func escapeGitHubProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
