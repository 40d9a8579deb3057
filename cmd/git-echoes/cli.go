package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/git-echoes/git-echoes/gitvault/review"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/setup"
	"github.com/git-echoes/git-echoes/internal/buildinfo"
	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/pytext"
)

// run is the whole program: it dispatches registered command groups by their
// first argument and hands everything else to the EchoesVault runtime CLI.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if fn, ok := extraCommands[args[0]]; ok {
			return fn(args[1:], stdin, stdout, stderr)
		}
	}
	return runEchoes(args, stdin, stdout, stderr)
}

const usageText = `usage: git echoes [--workspace PATH] [--agent NAME] [--adapter-version V]
                  <command> [options]

EchoesVault Protocol 1.0.0 runtime commands:
  init | migrate | upgrade        create or upgrade the vault and adapters
  protocol                        engine, adapter and protocol versions
  configure-agents                repair generated agent adapters
  inspect | status [--format json|card]
                                  read-only health report
  hydrate                         refresh the ignored index and local state
  start [--recent N] [--rev REV]  refresh the index, print the session context
  search QUERY [--limit N] [--rev REV]
                                  literal case-insensitive search of pages
  find QUERY [options]            ranked search of pages, daily and memories
  import SOURCE [options]         bring in a memory graph, notes or AGENTS.md
  append [--payload PATH|-]       write one unique scratchpad entry
  upsert [--payload PATH|-]       create or replace one page
  end --confirm-explicit-user-end [--payload PATH|-]
                                  finalize the session (explicit request only)
  hash FILENAME                   SHA-256 of a page's current text
  rebuild-index                   validate pages and regenerate index.md

Git integration, agents and the ECC memory vault (each has --help):
  check [--staged | --rev REV]    fail-closed gate: work tree, index or commit
  diff [A [B] | A..B | A...B]     what changed in memory (review)
  log PAGE|MEMORY-ID [--follow]   the history of one page or memory
  stale [PAGE...] [--strict]      pages citing code changed since written
  confirm PAGE                    record a page re-checked against HEAD
  hooks install|uninstall|status  pre-commit check, post-merge hydrate
  merge-driver                    page-aware three-way merge driver
  hook session-start              Claude Code / Codex SessionStart card
  memory <command>                ecc.memory.v1: save, handoff, search, read...
  mcp                             stdio MCP server for both vaults
  serve [--port N] [--open] [--scope user]
                                  read-only local web viewer of both vaults

Help and setup:
  help [COMMAND]                  this overview, or the help of one command
  version | --version             version, commit, Go, protocol and engine
  completion bash|zsh|fish|powershell
                                  shell completion script
`

// usageError is a command-line usage problem: usage text on stderr, exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// globals are the runtime's global options, accepted before the command.
type globals struct {
	workspace      string
	workspaceSet   bool
	agent          *string
	adapterVersion *string
	version        bool
}

func runEchoes(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g, rest, err := parseGlobals(args)
	if err == pflag.ErrHelp {
		io.WriteString(stdout, usageText)
		return exitOK
	}
	if err != nil {
		return usage(stderr, err.Error())
	}
	if g.version {
		io.WriteString(stdout, versionText(buildinfo.Get()))
		return exitOK
	}
	if len(rest) == 0 {
		return usage(stderr, "the following arguments are required: command")
	}
	cmd, cmdArgs := rest[0], rest[1:]
	if fn, ok := extraCommands[cmd]; ok {
		// The usage line promises `git echoes [--workspace PATH] <command>`
		// for every command, not only the runtime's.
		args, err := globalsForExtra(cmd, g, cmdArgs)
		if err != nil {
			return usage(stderr, err.Error())
		}
		return fn(args, stdin, stdout, stderr)
	}
	spec, ok := runtimeCommands[cmd]
	if !ok {
		return usage(stderr, fmt.Sprintf("argument command: invalid choice: %s", pyjson.ReprString(cmd)))
	}
	fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts := spec.flags(fs)
	positional, err := parseCommandArgs(fs, cmdArgs)
	if err == pflag.ErrHelp {
		fmt.Fprintf(stdout, "usage: git echoes %s %s\n", cmd, spec.synopsis)
		return exitOK
	}
	if err != nil {
		return usage(stderr, err.Error())
	}
	if len(positional) != spec.positionals {
		if len(positional) < spec.positionals {
			return usage(stderr, "the following arguments are required: "+spec.positionalName)
		}
		return usage(stderr, "unrecognized arguments: "+strings.Join(positional[spec.positionals:], " "))
	}
	// An as-of read given an empty revision (an unset CI variable) must not
	// quietly become the normal command, which writes the index and state.
	if fs.Changed("rev") && strings.TrimSpace(*opts["rev"]) == "" {
		return usage(stderr, "argument --rev: expected a revision, got an empty string")
	}
	inv := &invocation{opts: opts, positional: positional, stdin: stdin}
	if err := inv.checkOptions(); err != nil {
		return usage(stderr, err.Error())
	}
	eng, err := gitvault.Open(gitvault.Options{Workspace: g.workspace, Agent: g.agent, AdapterVersion: g.adapterVersion})
	if err != nil {
		return fail(stderr, err)
	}
	inv.eng = eng
	out, err := spec.run(inv)
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return usage(stderr, ue.msg)
		}
		return fail(stderr, err)
	}
	io.WriteString(stdout, out)
	return exitOK
}

func parseGlobals(args []string) (globals, []string, error) {
	// argparse refuses a separate option value that looks like an option;
	// pflag would take it. Check the global options up to the command.
	for i := 0; i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--"; i++ {
		switch args[i] {
		case "--workspace", "--agent", "--adapter-version":
			if i+1 < len(args) && looksLikeOption(args[i+1]) {
				return globals{}, nil, fmt.Errorf("argument %s: expected one argument", args[i])
			}
			i++
		}
	}
	fs, v := globalFlagSet()
	if err := fs.Parse(args); err != nil {
		return globals{}, nil, err
	}
	g := globals{workspace: *v.workspace, workspaceSet: fs.Changed("workspace"), version: *v.version}
	if fs.Changed("agent") {
		g.agent = v.agent
	}
	if fs.Changed("adapter-version") {
		g.adapterVersion = v.adapter
	}
	return g, fs.Args(), nil
}

// workspaceCommands are our own commands that take --workspace themselves.
var workspaceCommands = map[string]bool{"check": true, "find": true, "hooks": true, "import": true,
	"mcp": true, "merge-driver": true, "diff": true, "log": true, "serve": true, "stale": true, "confirm": true}

// globalsForExtra hands the global options given before one of our own
// commands to it: --workspace becomes the command's own (first, so one
// given after the command name wins, as the later option does in pflag).
// --agent and --adapter-version belong to the runtime commands' state
// files: our commands have no use for them, and saying so beats ignoring
// them.
func globalsForExtra(cmd string, g globals, args []string) ([]string, error) {
	switch {
	case g.agent != nil:
		return nil, fmt.Errorf("argument --agent: %s does not take it (only the EchoesVault runtime commands do)", pyjson.ReprString(cmd))
	case g.adapterVersion != nil:
		return nil, fmt.Errorf("argument --adapter-version: %s does not take it (only the EchoesVault runtime commands do)", pyjson.ReprString(cmd))
	case !g.workspaceSet:
		return args, nil
	case !workspaceCommands[cmd]:
		return nil, fmt.Errorf("argument --workspace: %s does not take it", pyjson.ReprString(cmd))
	}
	return append([]string{"--workspace=" + g.workspace}, args...), nil
}

type globalValues struct {
	workspace, agent, adapter *string
	version                   *bool
}

// globalFlagSet defines the global options; the man page lists them from
// here, with these descriptions.
func globalFlagSet() (*pflag.FlagSet, globalValues) {
	fs := pflag.NewFlagSet("git echoes", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SetInterspersed(false)
	return fs, globalValues{
		workspace: fs.String("workspace", "", "workspace directory (default: current directory)"),
		agent:     fs.String("agent", "", "calling agent name"),
		adapter:   fs.String("adapter-version", "", "calling adapter version"),
		version:   fs.Bool("version", false, "print the version (as git echoes version) and exit"),
	}
}

// negativeNumber matches what argparse treats as a positional despite its
// leading dash.
var negativeNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-\d+$|^-\d*\.\d+$`) })

// looksLikeOption reports whether argparse takes a as an option string
// rather than a positional or an option's value: a leading dash, unless it is
// "-" alone, a negative number, or contains a space.
func looksLikeOption(a string) bool {
	return strings.HasPrefix(a, "-") && a != "-" && !negativeNumber().MatchString(a) && !strings.Contains(a, " ")
}

// parseCommandArgs parses command options and returns the positionals.
// Arguments that argparse would take as positionals although they start with
// a dash (negative numbers, anything containing a space) are kept as such.
func parseCommandArgs(fs *pflag.FlagSet, args []string) ([]string, error) {
	var flagArgs, positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case looksLikeOption(a):
			flagArgs = append(flagArgs, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") {
				if f := fs.Lookup(name); f != nil && f.NoOptDefVal == "" && i+1 < len(args) {
					if looksLikeOption(args[i+1]) {
						return nil, fmt.Errorf("argument %s: expected one argument", a)
					}
					flagArgs = append(flagArgs, args[i+1])
					i++
				}
			}
		default:
			positional = append(positional, a)
		}
	}
	if err := fs.Parse(flagArgs); err != nil {
		return nil, err
	}
	return append(positional, fs.Args()...), nil
}

func usage(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "%s\ngit echoes: error: %s\n", strings.TrimRight(usageText, "\n"), msg)
	return exitUsage
}

// fail prints an expected error in the reference's compact JSON shape.
func fail(stderr io.Writer, err error) int {
	io.WriteString(stderr, pyjson.Compact(gitvault.ErrorReply(gitvault.ErrorMessage(err), nil))+"\n")
	return exitStatus(err)
}

// invocation carries one parsed runtime command.
type invocation struct {
	eng        *gitvault.Engine
	opts       map[string]*string
	positional []string
	stdin      io.Reader
}

func (inv *invocation) flag(name string) string { return *inv.opts[name] }

// payload returns the loader for --payload (stdin for "-").
func (inv *invocation) payload() gitvault.Payload {
	src := inv.flag("payload")
	return func() ([]byte, error) {
		if src == "-" {
			var buf bytes.Buffer
			_, err := io.Copy(&buf, inv.stdin)
			return buf.Bytes(), err
		}
		return os.ReadFile(expandHome(src))
	}
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// intFlag parses --recent/--limit with Python int() syntax.
func (inv *invocation) intFlag(name string) (int, error) {
	n, err := pytext.ParseInt(inv.flag(name))
	if err != nil {
		return 0, &usageError{fmt.Sprintf("argument --%s: invalid int value: %s", name, pyjson.ReprString(inv.flag(name)))}
	}
	return n, nil
}

// checkOptions applies the option types and choices (--recent, --limit,
// --format) while parsing, as argparse does: a bad value is a usage error
// even when the workspace cannot be resolved (echoes-conformance §4.2, echoes-conformance §4.4).
func (inv *invocation) checkOptions() error {
	for _, name := range []string{"recent", "limit"} {
		if _, ok := inv.opts[name]; ok {
			if _, err := inv.intFlag(name); err != nil {
				return err
			}
		}
	}
	if _, ok := inv.opts["format"]; ok {
		return checkFormat(inv.flag("format"))
	}
	return nil
}

func checkFormat(format string) error {
	if format != "json" && format != "card" {
		return &usageError{"argument --format: invalid choice: " + pyjson.ReprString(format) + " (choose from 'json', 'card')"}
	}
	return nil
}

type runtimeCommand struct {
	synopsis       string
	positionals    int
	positionalName string
	flags          func(fs *pflag.FlagSet) map[string]*string
	run            func(inv *invocation) (string, error)
}

func noFlags(*pflag.FlagSet) map[string]*string { return map[string]*string{} }

func payloadFlags(fs *pflag.FlagSet) map[string]*string {
	return map[string]*string{"payload": fs.String("payload", "-", "JSON payload file, or - for stdin")}
}

func jsonOut(v pyjson.Value, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return pyjson.Pretty(v), nil
}

var runtimeCommands = map[string]runtimeCommand{}

// revFlagUsage describes --rev of the as-of reads (issue 9).
const revFlagUsage = "read the vault of this commit from the object store: writes nothing, takes no lock"

func init() {
	install := func(op string) runtimeCommand {
		return runtimeCommand{flags: noFlags, run: func(inv *invocation) (string, error) { return jsonOut(setup.Install(inv.eng, op)) }}
	}
	runtimeCommands["init"] = install("init")
	runtimeCommands["migrate"] = install("migrate")
	runtimeCommands["upgrade"] = install("upgrade")
	runtimeCommands["protocol"] = runtimeCommand{flags: noFlags, run: func(inv *invocation) (string, error) {
		return pyjson.Pretty(inv.eng.Protocol()), nil
	}}
	runtimeCommands["configure-agents"] = runtimeCommand{flags: noFlags, run: func(inv *invocation) (string, error) {
		return jsonOut(setup.ConfigureAgents(inv.eng))
	}}
	runtimeCommands["hydrate"] = runtimeCommand{flags: noFlags, run: func(inv *invocation) (string, error) {
		out, err := jsonOut(inv.eng.Hydrate())
		if err == nil {
			refreshFindIndex(inv.eng.WS)
		}
		return out, err
	}}
	runtimeCommands["rebuild-index"] = runtimeCommand{flags: noFlags, run: func(inv *invocation) (string, error) {
		return jsonOut(inv.eng.RebuildIndex())
	}}
	runtimeCommands["start"] = runtimeCommand{synopsis: "[--recent N] [--rev REV]",
		flags: func(fs *pflag.FlagSet) map[string]*string {
			return map[string]*string{"recent": fs.String("recent", "3", "number of recent daily entries (0..10)"),
				"rev": fs.String("rev", "", revFlagUsage)}
		},
		run: func(inv *invocation) (string, error) {
			n, err := inv.intFlag("recent")
			if err != nil {
				return "", err
			}
			if rev := inv.flag("rev"); rev != "" {
				return review.StartAt(inv.eng, rev, n)
			}
			return inv.eng.Start(n)
		}}
	runtimeCommands["search"] = runtimeCommand{synopsis: "QUERY [--limit N] [--rev REV]", positionals: 1, positionalName: "query",
		flags: func(fs *pflag.FlagSet) map[string]*string {
			return map[string]*string{"limit": fs.String("limit", "100", "maximum results (1..500)"),
				"rev": fs.String("rev", "", revFlagUsage)}
		},
		run: func(inv *invocation) (string, error) {
			n, err := inv.intFlag("limit")
			if err != nil {
				return "", err
			}
			if rev := inv.flag("rev"); rev != "" {
				res, err := review.SearchAt(inv.eng, rev, inv.positional[0], n)
				if err != nil {
					return "", err
				}
				return pyjson.Pretty(res.JSON()), nil
			}
			res, err := inv.eng.Search(inv.positional[0], n)
			if err != nil {
				return "", err
			}
			return pyjson.Pretty(res.JSON()), nil
		}}
	runtimeCommands["hash"] = runtimeCommand{synopsis: "FILENAME", positionals: 1, positionalName: "filename", flags: noFlags,
		run: func(inv *invocation) (string, error) { return jsonOut(inv.eng.Hash(inv.positional[0])) }}
	runtimeCommands["append"] = runtimeCommand{synopsis: "[--payload PATH|-]", flags: payloadFlags,
		run: func(inv *invocation) (string, error) { return jsonOut(inv.eng.Append(inv.payload())) }}
	runtimeCommands["upsert"] = runtimeCommand{synopsis: "[--payload PATH|-]", flags: payloadFlags,
		run: func(inv *invocation) (string, error) { return jsonOut(inv.eng.Upsert(inv.payload())) }}
	runtimeCommands["end"] = runtimeCommand{synopsis: "--confirm-explicit-user-end [--payload PATH|-]",
		flags: func(fs *pflag.FlagSet) map[string]*string {
			m := payloadFlags(fs)
			// A boolean flag: NoOptDefVal makes "--confirm-explicit-user-end"
			// alone mean "true", and the value is read back as a string.
			m["confirm-explicit-user-end"] = fs.String("confirm-explicit-user-end", "", "required: the user explicitly asked to end the session")
			fs.Lookup("confirm-explicit-user-end").NoOptDefVal = "true"
			return m
		},
		run: func(inv *invocation) (string, error) {
			return jsonOut(inv.eng.End(inv.payload(), inv.flag("confirm-explicit-user-end") == "true"))
		}}
}
