package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault/memory"
)

// `git echoes help [COMMAND]` (issue 8: "help that always works").
//
// The command table below is the one home of the help texts: `help NAME`
// prints a topic's text, the manual pages are generated from the same
// texts (man.go), and shell completion offers the same commands, options
// and values (completion.go). For a command group that has its own
// --help (check, hooks, merge-driver, hook, mcp, memory, version), the
// topic's text is that very constant, so `help check` and `check --help`
// print the same bytes.

func init() { registerCommand("help", runHelp) }

const helpUsage = `usage: git echoes help [COMMAND]
       git echoes help --install-man DIR

Print the overview of all commands (the same as git-echoes --help), or the
help of one COMMAND: every command and command group has one, for example
"git echoes help check" or "git echoes help memory".

The manual pages git-echoes(1), git-echoes-check(1) and the others hold the
same texts. Git turns "git echoes --help" into "git help echoes", which
opens git-echoes(1) once the pages are installed:

  --install-man DIR  write the manual pages into DIR (created if missing),
                     for example ~/.local/share/man/man1; man finds them
                     when the parent of DIR is on MANPATH, or is the
                     share/man directory next to a bin directory on PATH
`

// helpTopic is one entry of the command table.
type helpTopic struct {
	name    string
	aliases []string // other names `help` accepts
	summary string   // one line: listings, NAME of its man page, completion
	text    string   // the help, exactly as `help NAME` prints it
	section string   // where git-echoes(1) lists it
	page    string   // its own man page (git-echoes-check), or "" for a section of git-echoes(1)
	compl   complSpec
}

// Sections of git-echoes(1), in order.
const (
	secVault  = "ECHOESVAULT COMMANDS"
	secGit    = "GIT INTEGRATION"
	secAgents = "AGENTS"
	secMemory = "ECC MEMORY VAULT"
	secViewer = "VIEWER"
	secSetup  = "HELP AND SETUP"
)

var manSections = []string{secVault, secGit, secAgents, secMemory, secViewer, secSetup}

// runtimeDescriptions document the EchoesVault runtime commands
// (echoes-conformance §4.1, echoes-conformance §15); their usage line and options come from
// the command definitions in cli.go.
var runtimeDescriptions = []struct{ name, summary, text string }{
	{"init", "create the vault, its marker, the runtime and the agent adapters", `
Create the EchoesVault in the workspace: EchoesVault/ with raw/, pages/,
daily/ and assets/, the protocol marker EchoesVault/.echoes-vault.json, the
ignore files, the project runtime .echoes-vault/echoes_vault.py (a small
launcher that runs git-echoes) and the managed agent adapters (AGENTS.md,
CLAUDE.md, skills, OpenCode commands); then regenerate the index and write
the local state. Existing pages are kept; legacy index descriptions become
page summaries. A runtime that is not git-echoes' own (the reference
engine) is never replaced. Prints a JSON report.`},
	{"migrate", "convert a legacy vault to EchoesVault Protocol 1.0.0", `
Bring a legacy vault to EchoesVault Protocol 1.0.0. The same steps as init,
reported as operation "migrate": missing directories, marker, ignore files,
runtime and adapters are created, and legacy index descriptions move into
the page summaries. Prints a JSON report.`},
	{"upgrade", "refresh the marker, runtime and adapters of an existing vault", `
Refresh an existing vault after installing a new git-echoes. The same steps
as init, reported as operation "upgrade": an older git-echoes launcher and
outdated managed adapters are replaced. Prints a JSON report.`},
	{"protocol", "report engine, adapter and protocol versions", `
Report the engine, adapter and protocol versions, the state of the vault's
protocol marker and of the project runtime, their paths, and the runtime
commands, as JSON. Read-only; it works without a vault.`},
	{"configure-agents", "repair the generated agent adapters", `
Repair the managed agent adapters of an initialized vault (the managed
blocks of AGENTS.md and CLAUDE.md, the skills, the OpenCode commands) and a
non-canonical marker, then regenerate the index. It installs a missing
project runtime but never replaces one; upgrade does. Prints JSON.`},
	{"inspect", "read-only health report", `
Report the health of the vault without writing anything: the local state
with live counts, whether the index needs a refresh, and the health checks
(marker, runtime, invalid pages, page-name collisions, Git readiness,
storage). --format card prints a short Markdown status card instead of
JSON. "status" is an exact alias.`},
	{"status", "read-only health report (alias of inspect)", `
Exactly inspect: the read-only health report, as JSON or, with --format
card, as a Markdown status card.`},
	{"hydrate", "refresh the ignored index and the local state", `
Regenerate the ignored index EchoesVault/index.md and the local state
.echoes-vault/state.json, for example after a checkout, pull or merge
(the post-merge hook runs it). It writes nothing else and fails when a page
is invalid. It needs the project runtime: run init first.`},
	{"start", "refresh the index and print the session context", `
Begin an agent session: regenerate the index, mark the session as started
and print the session context as Markdown: the index and the N most recent
daily entries (N is clamped to 0..10; most recent by path order).`},
	{"search", "literal case-insensitive search of page bodies", `
Search the pages (frontmatter included, daily entries not) for the literal
QUERY, case-insensitively, and print each matching line with its file and
line number as JSON. The limit is clamped to 1..500; "truncated" tells
whether more matches exist. A QUERY that starts with "-" goes after "--".`},
	{"append", "write one unique scratchpad entry", `
Write one new scratchpad entry into today's folder under EchoesVault/daily/
from the payload {"entry": "..."}. Entries are never overwritten: each gets
a unique file name. Prints JSON.`},
	{"upsert", "create or replace one page (expectedSha256 for updates)", `
Create or replace one page from the payload {"filename": "...", "content":
"..."}. The content needs frontmatter with type, stack, status and a
one-line summary. Replacing an existing page needs "expectedSha256", the
hash of the text you read (git echoes hash FILENAME), so that a concurrent
change is refused instead of lost. The index is regenerated. Prints JSON.`},
	{"end", "finalize the session (explicit user request only)", `
Finalize the session when the user explicitly asks for it: write the
payload's pages (each as upsert does), regenerate the index, and write the
session entry {"dailySummary": "..."} to today's daily folder. Refused
without --confirm-explicit-user-end. Prints JSON.`},
	{"hash", "SHA-256 of a page's current text", `
Print the SHA-256 of the current text of page FILENAME (with or without
.md), the expectedSha256 that upsert and end need to replace it. Read-only.`},
	{"rebuild-index", "validate pages and regenerate index.md", `
Validate every page and regenerate EchoesVault/index.md from the page
summaries; fails when a page is invalid or two page names collide. Prints
JSON.`},
}

var (
	topicsOnce sync.Once
	topicList  []*helpTopic
	topicIndex map[string]*helpTopic
)

// topics returns the command table, in the order of git-echoes(1). It is
// built on first use because the runtime commands register in init
// functions.
func topics() []*helpTopic {
	topicsOnce.Do(buildTopics)
	return topicList
}

func lookupTopic(name string) *helpTopic {
	topicsOnce.Do(buildTopics)
	return topicIndex[name]
}

func buildTopics() {
	for _, d := range runtimeDescriptions {
		spec, ok := runtimeCommands[d.name]
		if !ok {
			panic("help: no runtime command " + d.name)
		}
		t := &helpTopic{name: d.name, summary: d.summary, section: secVault}
		t.text, t.compl = runtimeHelp(d.name, spec, strings.TrimPrefix(d.text, "\n"))
		topicList = append(topicList, t)
	}
	workspace := complFlag{name: "--workspace", value: valDirs}
	topicList = append(topicList,
		&helpTopic{name: "find", summary: "ranked search over the pages, daily entries and memories",
			text: findUsage, section: secVault, page: "git-echoes-find",
			compl: complSpec{anywhere: true, flags: []complFlag{
				{name: "--daily"}, {name: "--rebuild"},
				{name: "--scope", value: valChoices, choices: memory.Scopes},
				{name: "--kind", value: valChoices, choices: memory.Kinds},
				{name: "--type", value: valText}, {name: "--stack", value: valText}, {name: "--status", value: valText},
				{name: "--tag", value: valText}, {name: "--since", value: valText},
				{name: "--limit", value: valText}, {name: "--budget", value: valText},
				{name: "--format", value: valChoices, choices: []string{"json", "text", "markdown"}}, workspace}}},
		&helpTopic{name: "import", summary: "bring an MCP memory graph, Basic Memory or Obsidian notes, or an AGENTS.md section into the vault",
			text: importUsage, section: secVault, page: "git-echoes-import",
			compl: complSpec{anywhere: true, args: valFiles, flags: []complFlag{
				{name: "--from", value: valChoices, choices: []string{"mcp-memory", "basic-memory", "obsidian", "agents-md"}},
				{name: "--section", value: valText},
				{name: "--into", value: valChoices, choices: []string{"pages", "memories"}},
				{name: "--dry-run"}, {name: "--force"},
				{name: "--format", value: valChoices, choices: []string{"json", "text"}}, workspace}}},
		&helpTopic{name: "check", summary: "fail-closed gate over the work tree, index or a commit",
			text: checkUsage, section: secGit, page: "git-echoes-check",
			compl: complSpec{flags: []complFlag{
				{name: "--staged"}, {name: "--rev", value: valRefs},
				{name: "--format", value: valChoices, choices: []string{"text", "json", "github", "codequality"}},
				{name: "--strict"}, {name: "--require-tracked"}, workspace}}},
		&helpTopic{name: "diff", summary: "what changed in memory between two snapshots (review)",
			text: diffUsage, section: secGit, page: "git-echoes-diff",
			compl: complSpec{args: valRefs, flags: []complFlag{{name: "--worktree"},
				{name: "--format", value: valChoices, choices: []string{"markdown", "json", "text"}}, {name: "--strict"}, workspace}}},
		&helpTopic{name: "log", summary: "the history of one page or memory",
			text: logUsage, section: secGit, page: "git-echoes-log",
			compl: complSpec{args: valPages, flags: []complFlag{{name: "--follow"}, {name: "--limit", value: valText},
				{name: "--rev", value: valRefs}, {name: "--format", value: valChoices, choices: []string{"text", "json"}}, workspace}}},
		&helpTopic{name: "stale", summary: "which pages cite code that changed since they were written",
			text: staleUsage, section: secGit, page: "git-echoes-stale",
			compl: complSpec{args: valPages, flags: []complFlag{{name: "--rev", value: valRefs}, {name: "--memories"},
				{name: "--format", value: valChoices, choices: []string{"text", "json", "markdown"}}, {name: "--strict"}, workspace}}},
		&helpTopic{name: "confirm", summary: "record that a page was re-checked against the code at HEAD",
			text: confirmUsage, section: secGit, page: "git-echoes-confirm",
			compl: complSpec{args: valPages, flags: []complFlag{workspace}}},
		&helpTopic{name: "hooks", summary: "pre-commit / pre-merge-commit check, post-merge hydrate",
			text: gitHooksUsage, section: secGit, page: "git-echoes-hooks",
			compl: complSpec{anywhere: true, flags: []complFlag{{name: "--force"}, workspace},
				subs: []complSub{{name: "install", desc: "install the Git hooks"},
					{name: "uninstall", desc: "remove the git-echoes blocks"},
					{name: "status", desc: "show each hook's state"}}}},
		&helpTopic{name: "merge-driver", aliases: []string{"merge"}, summary: "page-aware three-way merge driver and its installer",
			text: mergeDriverUsage, section: secGit, page: "git-echoes-merge-driver",
			compl: complSpec{anywhere: true, args: valFiles, flags: []complFlag{
				{name: "--ours-label", value: valText}, {name: "--base-label", value: valText},
				{name: "--theirs-label", value: valText}, {name: "--diff3"}, workspace},
				subs: []complSub{{name: "install", desc: "configure the merge driver in this repository",
					flags: []complFlag{{name: "--binary", value: valFiles}}},
					{name: "uninstall", desc: "remove the merge driver configuration"}}}},
		&helpTopic{name: "hook", aliases: []string{"session-start"}, summary: "Claude Code / Codex SessionStart status card",
			text: hookUsage, section: secAgents, page: "git-echoes-hook",
			compl: complSpec{subs: []complSub{{name: "session-start", desc: "the read-only vault status card"}}}},
		&helpTopic{name: "mcp", summary: "stdio MCP server for both vaults",
			text: mcpUsage, section: secAgents, page: "git-echoes-mcp",
			compl: complSpec{flags: []complFlag{workspace, {name: "--agent", value: valText},
				{name: "--memory"}, {name: "--vault"}, {name: "--max-output", value: valText},
				{name: "--no-watch"}, {name: "--verbose"}}}},
		&helpTopic{name: "memory", summary: "ecc.memory.v1: init, save, handoff, search, read, doctor",
			text: memoryUsage, section: secMemory, page: "git-echoes-memory",
			compl: complSpec{subs: memorySubs()}},
		&helpTopic{name: "serve", summary: "read-only local web viewer of both vaults",
			text: serveUsage, section: secViewer, page: "git-echoes-serve",
			compl: complSpec{flags: []complFlag{workspace, {name: "--port", value: valText}, {name: "--open"},
				{name: "--scope", value: valChoices, choices: []string{"user"}}}}},
		&helpTopic{name: "help", summary: "the overview, or the help of one command",
			text: helpUsage, section: secSetup,
			compl: complSpec{args: valTopics, flags: []complFlag{{name: "--install-man", value: valDirs}}}},
		&helpTopic{name: "version", summary: "version, commit, Go, protocol and engine versions",
			text: versionUsage, section: secSetup,
			compl: complSpec{flags: []complFlag{{name: "--format", value: valChoices, choices: []string{"text", "json"}}}}},
		&helpTopic{name: "completion", summary: "shell completion script for bash, zsh, fish or PowerShell",
			text: completionUsage, section: secSetup,
			compl: complSpec{subs: []complSub{{name: "bash"}, {name: "zsh"}, {name: "fish"}, {name: "powershell"}}}},
	)
	topicIndex = map[string]*helpTopic{}
	for _, t := range topicList {
		for _, n := range append([]string{t.name}, t.aliases...) {
			if topicIndex[n] != nil {
				panic("help: duplicate topic " + n)
			}
			topicIndex[n] = t
		}
	}
}

// memorySubs lists the memory commands with the options each documents
// (memoryUsage); the parser accepts every option for every command, but
// completion offers the ones that mean something there.
func memorySubs() []complSub {
	scope := complFlag{name: "--scope", value: valChoices, choices: memory.Scopes}
	kind := complFlag{name: "--kind", value: valChoices, choices: memory.Kinds}
	text := func(n string) complFlag { return complFlag{name: n, value: valText} }
	bodyFile := complFlag{name: "--body-file", value: valFiles}
	json := complFlag{name: "--json"}
	rev := complFlag{name: "--rev", value: valRefs}
	write := []complFlag{text("--title"), {name: "--stdin"}, bodyFile, scope, text("--target"),
		text("--tag"), text("--link"), json}
	return []complSub{
		{name: "init", desc: "create the memory scopes", flags: []complFlag{scope, json}},
		{name: "save", desc: "save an unreviewed memory", flags: append([]complFlag{kind, text("--source-harness"), text("--from")}, write...)},
		{name: "handoff", desc: "save a handoff for other harnesses", flags: append([]complFlag{text("--from")}, write...)},
		{name: "search", desc: "lexical search", flags: []complFlag{scope, kind, text("--target-harness"), text("--limit"), rev, json}},
		{name: "read", desc: "read one memory and its backlinks", flags: []complFlag{scope, rev, json}},
		{name: "doctor", desc: "check the memory vault", flags: []complFlag{scope, json}},
		{name: "help", desc: "the memory commands"},
	}
}

// synopsisArg finds each option's argument name in a synopsis such as
// "[--recent N]" or "--confirm-explicit-user-end [--payload PATH|-]".
var synopsisArg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`--([a-z][a-z-]*)(?:[ =]([^\s\[\]()]+))?`) })

// runtimeHelp renders a runtime command's help: its usage line (the one
// `COMMAND --help` prints), the description, and its options as defined
// in cli.go, with their descriptions and defaults.
func runtimeHelp(name string, spec runtimeCommand, description string) (string, complSpec) {
	var b strings.Builder
	b.WriteString(strings.TrimRight("usage: git echoes "+name+" "+spec.synopsis, " ") + "\n\n")
	b.WriteString(strings.TrimRight(description, "\n") + "\n")
	argName := map[string]string{}
	for _, m := range synopsisArg().FindAllStringSubmatch(spec.synopsis, -1) {
		argName[m[1]] = m[2]
	}
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	spec.flags(fs)
	var opts [][2]string
	var compl complSpec
	fs.VisitAll(func(f *pflag.Flag) {
		term := "--" + f.Name
		if a := argName[f.Name]; a != "" && f.NoOptDefVal == "" {
			term += " " + a
		}
		desc := f.Usage
		if f.NoOptDefVal == "" && f.DefValue != "" {
			desc += " (default " + f.DefValue + ")"
		}
		opts = append(opts, [2]string{term, desc})
		cf := complFlag{name: "--" + f.Name}
		switch {
		case f.NoOptDefVal != "":
		case f.Name == "payload":
			cf.value, cf.extra = valFiles, []string{"-"}
		case f.Name == "format":
			cf.value, cf.choices = valChoices, []string{"json", "card"}
		case f.Name == "rev":
			cf.value = valRefs
		default:
			cf.value = valText
		}
		compl.flags = append(compl.flags, cf)
	})
	if name == "hash" {
		compl.args = valPages
	}
	if len(opts) > 0 {
		b.WriteString("\nOptions:\n")
		for _, o := range opts {
			b.WriteString(definition(o[0], o[1]))
		}
	}
	return b.String(), compl
}

// definition lays out one option as the other help texts do: the term in
// a 19-column field, the description wrapped at 79 columns below it.
func definition(term, desc string) string {
	const col, width = 21, 79
	var b strings.Builder
	line := "  " + term
	if len(line) >= col-1 {
		b.WriteString(line + "\n")
		line = ""
	}
	line += strings.Repeat(" ", col-len(line))
	start := true
	for _, w := range strings.Fields(desc) {
		if !start && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line, start = strings.Repeat(" ", col), true
		}
		if !start {
			line += " "
		}
		line += w
		start = false
	}
	b.WriteString(line + "\n")
	return b.String()
}

func runHelp(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("help", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	installMan := fs.String("install-man", "", "")
	fail := func(msg string) int {
		fmt.Fprintf(stderr, "%sgit echoes help: error: %s\n", helpUsage, msg)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, helpUsage)
			return exitOK
		}
		return fail(err.Error())
	}
	if fs.Changed("install-man") {
		if fs.NArg() > 0 {
			return fail("--install-man takes no command")
		}
		if *installMan == "" {
			return fail("--install-man needs a directory")
		}
		return installManPages(*installMan, stdout, stderr)
	}
	if fs.NArg() == 0 {
		io.WriteString(stdout, usageText)
		return exitOK
	}
	t := findTopic(fs.Args())
	if t == nil {
		return fail(fmt.Sprintf("no help for %q: not a git echoes command (git echoes help lists them)", strings.Join(fs.Args(), " ")))
	}
	io.WriteString(stdout, t.text)
	return exitOK
}

// findTopic takes the longest leading run of words that names a topic, so
// that "merge driver" finds merge-driver and "memory save" or "hooks
// install" find their group.
func findTopic(words []string) *helpTopic {
	for n := len(words); n > 0; n-- {
		if t := lookupTopic(strings.Join(words[:n], "-")); t != nil {
			return t
		}
	}
	return nil
}
