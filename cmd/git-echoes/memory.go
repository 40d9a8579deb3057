package main

import (
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/jsjson"
)

// The ECC memory vault CLI: `git echoes memory <command>`, the counterpart
// of the reference's `ecc memory <command>` with the same options, outputs
// and exit codes, except that doctor exits 3 when it finds problems (the
// reference exits 0; set GIT_ECHOES_MEMORY_DOCTOR_EXIT_ZERO=1 for that).

func init() { registerCommand("memory", runMemory) }

const memoryUsage = `Usage: git echoes memory <command> [options]

Commands:
  init [--scope project|team|user]... [--json]
  save --title <text> (--stdin | --body-file <path>) [--kind <kind>]
       [--scope <scope>] [--source-harness <h> | --from <h>] [--target <h>]...
       [--tag <t>]... [--link <id>]... [--json]
  handoff --from <h> --target <h>... --title <text>
          (--stdin | --body-file <path>) [options]
  search [words...] [--scope <s>]... [--kind <k>]... [--target-harness <h>]
         [--limit <n>] [--rev <rev>] [--json]
  read <id> [--scope <s>]... [--rev <rev>] [--json]
  doctor [--scope <s>]... [--json]

As-of reads (git-echoes): search and read take --rev <rev> to read the
project and team scopes from .ecc/memory/ of that commit, straight from the
Git object store: nothing is written, no lock is taken, and the output has
the normal shape. The user scope and ECC_MEMORY_PROJECT_ROOT are not in Git
and are refused with --rev, as are the write options (--title, --stdin,
--body-file, --source-harness, --from, --target, --tag, --link). An
unknown revision or a directory outside a Git work tree exits 2.

Scopes default to project and team; the user scope (~/.ecc/memory) is used
only when requested with --scope user. Memories are created unreviewed and
never overwritten. Environment: ECC_MEMORY_PROJECT_ROOT, ECC_MEMORY_USER_ROOT,
ECC_MEMORY_HARNESS, ECC_DRY_RUN=1.

Exit status: 0 success, 1 error, 2 --rev could not be read (or was
misused), 3 doctor found problems (GIT_ECHOES_MEMORY_DOCTOR_EXIT_ZERO=1
restores the reference's 0).
`

type memoryArgs struct {
	command     string
	positionals []string
	values      map[string]string
	lists       map[string][]string
	json, stdin bool
	help        bool
}

var (
	memoryValueOpts  = map[string]bool{"--body-file": true, "--from": true, "--limit": true, "--rev": true, "--source-harness": true, "--target-harness": true, "--title": true}
	memoryRepeatOpts = map[string]bool{"--kind": true, "--link": true, "--scope": true, "--tag": true, "--target": true}
)

// parseMemoryArgs reproduces the reference's hand-rolled parser: no
// --opt=value form, a value may not start with "--", any other dash
// argument is unknown, and every command accepts every known option.
func parseMemoryArgs(args []string) (*memoryArgs, error) {
	a := &memoryArgs{values: map[string]string{}, lists: map[string][]string{}}
	if len(args) > 0 {
		a.command = args[0]
		args = args[1:]
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case memoryValueOpts[arg] || memoryRepeatOpts[arg]:
			if i+1 >= len(args) || strings.HasPrefix(args[i+1], "--") {
				return nil, &memory.Error{Code: memory.CodeInvalid, Message: arg + " requires a value."}
			}
			i++
			if memoryValueOpts[arg] {
				a.values[arg] = args[i]
			} else {
				a.lists[arg] = append(a.lists[arg], args[i])
			}
		case arg == "--json":
			a.json = true
		case arg == "--stdin":
			a.stdin = true
		case arg == "--help" || arg == "-h":
			a.help = true
		case strings.HasPrefix(arg, "-"):
			return nil, &memory.Error{Code: memory.CodeInvalid, Message: "Unknown option: " + arg}
		default:
			a.positionals = append(a.positionals, arg)
		}
	}
	return a, nil
}

func runMemory(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		io.WriteString(stderr, "Error: "+memory.SanitizeTerminal(err.Error())+"\n")
		return exitMemoryError
	}
	a, err := parseMemoryArgs(args)
	if err != nil {
		return fail(err)
	}
	if len(args) == 0 || a.help || a.command == "help" || a.command == "--help" || a.command == "-h" {
		io.WriteString(stdout, memoryUsage)
		return exitOK
	}
	switch a.command {
	case "init", "save", "handoff":
		if os.Getenv("ECC_DRY_RUN") == "1" {
			return fail(&memory.Error{Code: memory.CodeInvalid, Message: "memory " + a.command + " is disabled in dry-run mode; no files were written."})
		}
	}
	roots, err := memory.ResolveRoots(memory.RootOptions{})
	if err != nil {
		return fail(err)
	}
	if rev, ok := a.values["--rev"]; ok {
		if roots, err = memoryRevRoots(roots, a, rev); err != nil {
			io.WriteString(stderr, "Error: "+memory.SanitizeTerminal(err.Error())+"\n")
			return exitError
		}
	}
	var out string
	code := exitOK
	switch a.command {
	case "init":
		out, err = memoryInit(roots, a)
	case "save", "handoff":
		out, err = memorySave(roots, a, stdin)
	case "search":
		out, err = memorySearch(roots, a)
	case "read":
		out, err = memoryRead(roots, a)
	case "doctor":
		out, code, err = memoryDoctor(roots, a)
	default:
		err = &memory.Error{Code: memory.CodeInvalid, Message: "Unknown memory command: " + a.command}
	}
	if err != nil {
		return fail(err)
	}
	io.WriteString(stdout, out)
	return code
}

func noPositionals(a *memoryArgs) error {
	if len(a.positionals) > 0 {
		return &memory.Error{Code: memory.CodeInvalid, Message: a.command + " does not accept positional arguments."}
	}
	return nil
}

func prettyJSON(v jsjson.Object) string { return jsjson.MarshalPretty(v) + "\n" }

func memoryInit(roots *memory.Roots, a *memoryArgs) (string, error) {
	if err := noPositionals(a); err != nil {
		return "", err
	}
	res, err := memory.Init(roots, a.lists["--scope"])
	if err != nil {
		return "", err
	}
	if a.json {
		return prettyJSON(jsjson.Object{
			{Key: "schemaVersion", Value: "ecc.memory.init.v1"},
			{Key: "scopes", Value: res.Scopes},
			{Key: "roots", Value: jsjson.Object{
				{Key: "project", Value: roots.ScopeRoot("project")},
				{Key: "team", Value: roots.ScopeRoot("team")},
				{Key: "user", Value: roots.ScopeRoot("user")},
			}},
			{Key: "directories", Value: res.Directories},
		}), nil
	}
	var b strings.Builder
	b.WriteString("Initialized ECC memory scopes: " + memory.SanitizeTerminal(strings.Join(res.Scopes, ", ")) + "\n")
	for _, s := range res.Scopes {
		b.WriteString("- " + s + ": " + memory.SanitizeTerminal(roots.ScopeRoot(s)) + "\n")
	}
	return b.String(), nil
}

func memorySave(roots *memory.Roots, a *memoryArgs, stdin io.Reader) (string, error) {
	invalid := func(msg string) error { return &memory.Error{Code: memory.CodeInvalid, Message: msg} }
	if err := noPositionals(a); err != nil {
		return "", err
	}
	if a.values["--title"] == "" {
		return "", invalid("--title is required.")
	}
	handoff := a.command == "handoff"
	if handoff {
		if a.values["--from"] == "" {
			return "", invalid("--from is required for handoffs.")
		}
		if len(a.lists["--target"]) == 0 {
			return "", invalid("At least one --target is required for handoffs.")
		}
	}
	bodyFile, hasFile := a.values["--body-file"]
	if a.stdin == hasFile {
		return "", invalid("Choose exactly one memory body source: --stdin or --body-file.")
	}
	var body string
	var err error
	if a.stdin {
		body, err = memory.ReadBody(stdin)
	} else {
		body, err = memory.ReadBodyFile(roots.Cwd, bodyFile)
	}
	if err != nil {
		return "", err
	}
	kind := "handoff"
	if !handoff {
		kinds := a.lists["--kind"]
		if len(kinds) > 1 {
			return "", invalid("--kind may be provided only once.")
		}
		kind = "note"
		if len(kinds) == 1 {
			kind = kinds[0]
		}
	}
	scopes := a.lists["--scope"]
	if len(scopes) > 1 {
		return "", invalid("--scope may be provided only once.")
	}
	scope := "project"
	if len(scopes) == 1 {
		scope = scopes[0]
	}
	source := a.values["--from"]
	if source == "" {
		source = a.values["--source-harness"]
	}
	if source == "" {
		source = os.Getenv("ECC_MEMORY_HARNESS")
	}
	res, err := memory.Save(roots, memory.SaveInput{
		Title: a.values["--title"], Body: body, Kind: kind, Scope: scope, SourceHarness: source,
		TargetHarnesses: a.lists["--target"], Tags: a.lists["--tag"], Links: a.lists["--link"],
	})
	if err != nil {
		return "", err
	}
	m := res.Memory
	if a.json {
		return prettyJSON(jsjson.Object{
			{Key: "schemaVersion", Value: "ecc.memory.write.v1"},
			{Key: "memory", Value: m.Summary()},
			{Key: "path", Value: m.RelPath()},
		}), nil
	}
	return memory.SanitizeTerminal("Saved unreviewed "+m.Kind+": "+m.Title) + "\n" +
		"ID: " + m.ID + "\nPath: " + memory.SanitizeTerminal(m.RelPath()) + "\n", nil
}

func memorySearch(roots *memory.Roots, a *memoryArgs) (string, error) {
	query := strings.Join(a.positionals, " ")
	limit := 0
	if v, ok := a.values["--limit"]; ok {
		limit = memory.ParseLimit(v)
	}
	res, err := memory.Search(roots, memory.SearchOptions{
		Query: query, Scopes: a.lists["--scope"], Kinds: a.lists["--kind"],
		TargetHarness: a.values["--target-harness"], Limit: limit,
	})
	if err != nil {
		return "", err
	}
	if a.json {
		return prettyJSON(append(jsjson.Object{
			{Key: "schemaVersion", Value: "ecc.memory.search.v1"},
			{Key: "query", Value: query},
		}, res.JSON()...)), nil
	}
	if len(res.Results) == 0 {
		return "No matching memories found.\n", nil
	}
	lines := make([]string, 0, 2*len(res.Results))
	for _, r := range res.Results {
		m := r.Memory
		lines = append(lines,
			"["+memory.SanitizeTerminal(m.Trust)+"] "+memory.SanitizeTerminal(m.ID)+" — "+memory.SanitizeTerminal(m.Title)+" (score "+strconv.Itoa(r.Score)+")",
			"  "+memory.SanitizeTerminal(r.Excerpt))
	}
	return strings.Join(lines, "\n") + "\n", nil
}

func memoryRead(roots *memory.Roots, a *memoryArgs) (string, error) {
	if len(a.positionals) != 1 {
		return "", &memory.Error{Code: memory.CodeInvalid, Message: "read requires exactly one memory ID."}
	}
	res, err := memory.Read(roots, a.positionals[0], memory.ReadOptions{Scopes: a.lists["--scope"]})
	if err != nil {
		return "", err
	}
	m := res.Memory
	if a.json {
		return prettyJSON(jsjson.Object{
			{Key: "schemaVersion", Value: "ecc.memory.read.v1"},
			{Key: "memory", Value: m.Full()},
			{Key: "path", Value: res.Path},
			{Key: "backlinks", Value: res.BacklinksJSON()},
			{Key: "backlinksTruncated", Value: res.BacklinksTruncated},
		}), nil
	}
	back := "none"
	if len(res.Backlinks) > 0 {
		ids := make([]string, len(res.Backlinks))
		for i, b := range res.Backlinks {
			ids[i] = b.ID
		}
		back = strings.Join(ids, ", ")
	}
	s := memory.SanitizeTerminal
	return "[" + s(m.Trust) + "] " + s(m.Title) + "\n" +
		"ID: " + s(m.ID) + "\n" +
		"Source: " + s(m.SourceHarness) + "\n" +
		"Targets: " + s(strings.Join(m.TargetHarnesses, ", ")) + "\n\n" +
		s(m.Body) + "\n\n" +
		"Backlinks: " + s(back) + "\n", nil
}

func memoryDoctor(roots *memory.Roots, a *memoryArgs) (string, int, error) {
	if err := noPositionals(a); err != nil {
		return "", exitOK, err
	}
	rep, err := memory.Doctor(roots, memory.DoctorOptions{Scopes: a.lists["--scope"]})
	if err != nil {
		return "", exitOK, err
	}
	code := exitOK
	if !rep.OK && os.Getenv("GIT_ECHOES_MEMORY_DOCTOR_EXIT_ZERO") != "1" {
		code = memoryDoctorIssuesExit
	}
	if a.json {
		return prettyJSON(rep.JSON()), code, nil
	}
	status := "PASS"
	if !rep.OK {
		status = "ISSUES FOUND"
	}
	return "ECC memory doctor: " + status + "\n" +
		"Memories: " + strconv.Itoa(rep.MemoryCount) + "\n" +
		"Invalid files: " + strconv.Itoa(rep.InvalidFileCount) + "\n" +
		"Duplicate IDs: " + strconv.Itoa(rep.DuplicateIDCount) + "\n" +
		"Broken links: " + strconv.Itoa(rep.BrokenLinkCount) + "\n" +
		"Skipped symlinks: " + strconv.Itoa(rep.SkippedSymlinkCount) + "\n", code, nil
}

// memoryRevWriteOpts are the options that only mean something when
// writing; --rev refuses them rather than ignore them.
var memoryRevWriteOpts = []string{"--title", "--body-file", "--source-harness", "--from", "--target", "--tag", "--link"}

// memoryRevRoots refuses the options --rev cannot mean, then returns the
// roots of .ecc/memory/ in the commit rev (memory.RevRoots).
func memoryRevRoots(roots *memory.Roots, a *memoryArgs, rev string) (*memory.Roots, error) {
	bad := func(msg string) error { return &memory.Error{Code: memory.CodeInvalid, Message: msg} }
	if a.command != "search" && a.command != "read" {
		return nil, bad("--rev reads a commit and writes nothing: it applies to search and read only.")
	}
	if rev == "" {
		return nil, bad("--rev needs a revision.")
	}
	if a.stdin {
		return nil, bad("--stdin is a write option; it cannot be combined with --rev.")
	}
	for _, o := range memoryRevWriteOpts {
		_, v := a.values[o]
		if v || len(a.lists[o]) > 0 {
			return nil, bad(o + " is a write option; it cannot be combined with --rev.")
		}
	}
	for _, s := range a.lists["--scope"] {
		if s == "user" {
			return nil, bad("The user scope is not stored in Git; it cannot be combined with --rev.")
		}
	}
	if os.Getenv("ECC_MEMORY_PROJECT_ROOT") != "" {
		return nil, bad("ECC_MEMORY_PROJECT_ROOT names a directory on disk; --rev reads .ecc/memory/ of the commit. Unset it to use --rev.")
	}
	return memory.RevRoots(roots, rev)
}
