package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

func init() { registerCommand("check", runCheck) }

const checkUsage = `usage: git echoes check [--staged | --rev REV] [--format text|json|github] [--require-tracked] [--workspace PATH]

Fail-closed gate for EchoesVault content: validates every page (frontmatter,
summary), page-name collisions, Git conflict markers in EchoesVault/**/*.md,
unmerged vault paths, the protocol marker, vault paths that cannot exist on
Windows (reserved names such as CON or aux.png, the characters <>:"|?*,
control characters, a trailing '.' or space; rule windows-name, reported on
every OS), page names holding a control, line-separator or bidi-control
character (rule unsafe-name: the index and the session context copy them
verbatim), and local-only files (EchoesVault/index.md,
.echoes-vault/state.json, .echoes-vault/lock, legacy state files) that are
tracked or committed. A repository without a vault passes, so the gate can
run everywhere.

Sources (one snapshot, read-only):
  (default)          the work tree; local-only files are checked against the index
  --staged           the blobs of the Git index ($GIT_INDEX_FILE when set):
                     exactly what the next commit will contain (pre-commit hook)
  --rev REV          the tree of a commit, from the object store (CI gate)

Options:
  --format FORMAT    text (default), json, or github (workflow-command annotations)
  --require-tracked  also fail when durable vault files in the work tree are not
                     tracked by Git (not with --rev)
  --workspace PATH   workspace directory (default: current directory)

Exit status:
  0  no findings (or no EchoesVault here)
  1  findings: the snapshot must not be committed or merged as is
  2  usage error, or the snapshot could not be read (not a Git work tree,
     unreadable repository, unknown revision): the gate fails closed
`

func checkUsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "%sgit echoes check: error: %s\n", checkUsage, msg)
	return exitUsage
}

func runCheck(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	staged := fs.Bool("staged", false, "")
	rev := fs.String("rev", "", "")
	format := fs.String("format", "text", "")
	requireTracked := fs.Bool("require-tracked", false, "")
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
	opt := gitvault.CheckOptions{RequireTracked: *requireTracked}
	switch {
	case *staged && fs.Changed("rev"):
		return checkUsageError(stderr, "--staged and --rev are mutually exclusive")
	case *staged:
		opt.Source = gitvault.CheckStaged
	case fs.Changed("rev"):
		if *rev == "" {
			return checkUsageError(stderr, "--rev needs a revision")
		}
		if *requireTracked {
			return checkUsageError(stderr, "--require-tracked compares the work tree with the index; it cannot be combined with --rev")
		}
		opt.Source, opt.Rev = gitvault.CheckRev, *rev
	}
	switch *format {
	case "text", "json", "github":
	default:
		return checkUsageError(stderr, "--format must be text, json or github, not "+pyjson.ReprString(*format))
	}
	eng, err := gitvault.Open(gitvault.Options{Workspace: *workspace})
	if err == nil {
		var res *gitvault.CheckResult
		if res, err = eng.Check(opt); err == nil {
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
func sourceLabel(res *gitvault.CheckResult) string {
	switch res.Source {
	case gitvault.CheckStaged:
		return "staged index"
	case gitvault.CheckRev:
		return "revision " + res.Rev
	}
	return "work tree"
}

func renderCheck(res *gitvault.CheckResult, format string) string {
	switch format {
	case "json":
		return pyjson.Pretty(res.JSON())
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
		if f.Line > 0 {
			fmt.Fprintf(&b, "%s:%d: %s: %s\n", f.Path, f.Line, f.Rule, f.Message)
		} else {
			fmt.Fprintf(&b, "%s: %s: %s\n", f.Path, f.Rule, f.Message)
		}
	}
	b.WriteString(checkSummary(res))
	return b.String()
}

func checkSummary(res *gitvault.CheckResult) string {
	switch {
	case !res.Vault:
		return "git echoes check: no EchoesVault here (" + sourceLabel(res) + ")\n"
	case res.OK():
		return fmt.Sprintf("git echoes check: ok (%s, %d pages)\n", sourceLabel(res), res.Pages)
	}
	noun := "findings"
	if len(res.Findings) == 1 {
		noun = "finding"
	}
	return fmt.Sprintf("git echoes check: %d %s in the %s; fix them before committing\n", len(res.Findings), noun, sourceLabel(res))
}

// githubAnnotation renders one finding as a GitHub Actions workflow command.
func githubAnnotation(f gitvault.Finding) string {
	props := "file=" + escapeGitHubProperty(f.Path)
	if f.Line > 0 {
		props += fmt.Sprintf(",line=%d", f.Line)
	}
	props += ",title=" + escapeGitHubProperty(f.Rule)
	return "::error " + props + "::" + escapeGitHubData(f.Message) + "\n"
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
