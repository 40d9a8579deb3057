package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault"
)

// `git echoes completion SHELL` (issue 8: shell completion). Each script is
// a thin layer that asks the binary what to offer (`git-echoes __complete`),
// so every shell completes the same commands, options and values, all
// taken from the command table in help.go, and page names are found by the
// engine's own workspace resolution (echoes-conformance §3).

func init() {
	registerCommand("completion", runCompletion)
	registerCommand(completeCommand, runComplete)
}

// completeCommand is the hidden command the scripts call:
//
//	git-echoes __complete --cur=CURRENT [WORD...]
//
// WORDs are the words after the program name ("git-echoes", or "git
// echoes") before the cursor; CURRENT is the word being completed, passed
// as --cur=... because PowerShell 5 drops empty arguments to native
// commands. The answer is a directive line, "words", "files" or "dirs"
// (complete those too), optionally followed by a tab and the text before
// the value in CURRENT ("--payload="), then one candidate a line, each
// "value" or "value<TAB>description". Candidates start with CURRENT.
const completeCommand = "__complete"

const completionUsage = `usage: git echoes completion bash|zsh|fish|powershell

Print the completion script of a shell for "git echoes <TAB>" and
"git-echoes <TAB>": commands, options, option values, page names for hash,
help topics. The script asks git-echoes what to complete, so it stays
right when git-echoes is upgraded.

bash: the script defines _git_echoes, which Git's own completion calls for
"git echoes", and completes git-echoes too. With bash-completion, save it
where it is loaded on demand:
  git echoes completion bash \
    > ~/.local/share/bash-completion/completions/git-echoes
or load it from ~/.bashrc:
  source <(git echoes completion bash)

zsh: save it as _git-echoes in a directory of $fpath, which also lists
echoes among the commands of "git <TAB>":
  mkdir -p ~/.zfunc && git echoes completion zsh > ~/.zfunc/_git-echoes
and in ~/.zshrc, before compinit runs:
  fpath=(~/.zfunc $fpath)
or, after compinit in ~/.zshrc: source <(git echoes completion zsh)

fish (conf.d, so that "git echoes" completes before git-echoes was used):
  git echoes completion fish > ~/.config/fish/conf.d/git-echoes.fish

PowerShell (completes git-echoes and git-echoes.exe):
  git echoes completion powershell >> $PROFILE
`

func runCompletion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("completion", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fail := func(msg string) int {
		fmt.Fprintf(stderr, "%sgit echoes completion: error: %s\n", completionUsage, msg)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, completionUsage)
			return exitOK
		}
		return fail(err.Error())
	}
	if fs.NArg() != 1 {
		return fail("expected one shell: bash, zsh, fish or powershell")
	}
	script, ok := completionScripts[fs.Arg(0)]
	if !ok {
		return fail(fmt.Sprintf("unknown shell %q: expected bash, zsh, fish or powershell", fs.Arg(0)))
	}
	io.WriteString(stdout, script)
	return exitOK
}

// complKind is what an option value or a positional argument completes to.
type complKind int

const (
	valNone    complKind = iota // a boolean option; no positional arguments
	valText                     // free text: nothing to offer
	valChoices                  // one of choices
	valFiles                    // a file (the shell completes paths)
	valDirs                     // a directory
	valRefs                     // a Git revision: branches, tags, remote branches
	valPages                    // an EchoesVault page name
	valTopics                   // a help topic
)

type complFlag struct {
	name    string // "--format"
	value   complKind
	choices []string // valChoices
	extra   []string // offered besides files ("-" for stdin)
}

type complSub struct {
	name, desc string
	flags      []complFlag // options of this subcommand only
}

// complSpec says what a command completes: its options, subcommands (the
// first positional argument) and further positional arguments.
type complSpec struct {
	flags []complFlag
	subs  []complSub
	// args completes the positional arguments when there are no
	// subcommands, or the first one next to them (merge-driver BASE ...).
	args complKind
	// anywhere: options may come before the subcommand (pflag parses
	// them interspersed); otherwise the subcommand must be first.
	anywhere bool
}

type candidate struct{ value, desc string }

type completion struct {
	directive string // words, files, dirs
	prefix    string // the text before the value in the current word
	cands     []candidate
}

var globalComplFlags = []complFlag{
	{name: "--workspace", value: valDirs}, {name: "--agent", value: valText},
	{name: "--adapter-version", value: valText}, {name: "--version"}, {name: "--help"},
}

func runComplete(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || !strings.HasPrefix(args[0], "--cur=") {
		fmt.Fprintf(stderr, "usage: git-echoes %s --cur=CURRENT [WORD...]\n", completeCommand)
		return exitUsage
	}
	c := complete(args[1:], strings.TrimPrefix(args[0], "--cur="))
	var b strings.Builder
	b.WriteString(c.directive)
	if c.prefix != "" {
		b.WriteString("\t" + c.prefix)
	}
	b.WriteString("\n")
	for _, cd := range c.cands {
		// One candidate a line: a value that cannot travel that way (a
		// page name with a newline or tab) is left out.
		if strings.ContainsAny(cd.value, "\t\r\n") || !strings.HasPrefix(cd.value, c.prefix) {
			continue
		}
		b.WriteString(cd.value)
		if cd.desc != "" {
			b.WriteString("\t" + cd.desc)
		}
		b.WriteString("\n")
	}
	io.WriteString(stdout, b.String())
	return exitOK
}

// complete computes what to offer for cur, the word at the cursor, after
// the words before it.
func complete(words []string, cur string) completion {
	workspace := ""
	i := 0
	// Global options come before the command (echoes-conformance §4.1).
	for i < len(words) && strings.HasPrefix(words[i], "-") && words[i] != "-" {
		name, val, hasEq := strings.Cut(words[i], "=")
		f := findComplFlag(globalComplFlags, name)
		if f != nil && f.value != valNone && !hasEq {
			if i+1 == len(words) {
				return completeValue(f, cur, "", workspace)
			}
			val = words[i+1]
			i++
		}
		if name == "--workspace" {
			workspace = val
		}
		i++
	}
	if i == len(words) {
		if strings.HasPrefix(cur, "-") {
			return completeFlags(globalComplFlags, cur, workspace)
		}
		var cs []candidate
		for _, t := range topics() {
			// Only the runtime commands take global options before them
			// (run dispatches the command groups by the first word).
			if i == 0 || t.section == secVault {
				cs = append(cs, candidate{t.name, t.summary})
			}
		}
		return filtered("words", "", cur, cs)
	}
	t := lookupTopic(words[i])
	if t == nil || t.name != words[i] || i > 0 && t.section != secVault {
		return completion{directive: "words"}
	}
	spec := t.compl
	var sub *complSub
	flags := spec.flags
	npos := 0
	rest := words[i+1:]
	for j := 0; j < len(rest); j++ {
		w := rest[j]
		if strings.HasPrefix(w, "-") && w != "-" {
			name, val, hasEq := strings.Cut(w, "=")
			f := findComplFlag(flags, name)
			if f != nil && f.value != valNone && !hasEq {
				if j+1 == len(rest) {
					return completeValue(f, cur, "", workspace)
				}
				val = rest[j+1]
				j++
			}
			if name == "--workspace" && f != nil {
				workspace = val
			}
			continue
		}
		if npos == 0 && sub == nil {
			for k := range spec.subs {
				if spec.subs[k].name == w {
					sub = &spec.subs[k]
					flags = append(append([]complFlag(nil), spec.flags...), sub.flags...)
				}
			}
		}
		npos++
	}
	if strings.HasPrefix(cur, "-") && cur != "-" {
		if len(spec.subs) > 0 && sub == nil && !spec.anywhere {
			// Options come after the subcommand (memory): only help here.
			return completeFlags([]complFlag{{name: "--help"}}, cur, workspace)
		}
		return completeFlags(append(flags, complFlag{name: "--help"}), cur, workspace)
	}
	if npos == 0 && len(spec.subs) > 0 {
		var cs []candidate
		for _, s := range spec.subs {
			cs = append(cs, candidate{s.name, s.desc})
		}
		c := filtered("words", "", cur, cs)
		if spec.args == valFiles {
			c.directive = "files"
		}
		return c
	}
	if sub != nil || npos > 0 && spec.args != valFiles {
		return completion{directive: "words"}
	}
	return completeArg(spec.args, cur, workspace)
}

func findComplFlag(flags []complFlag, name string) *complFlag {
	for i := range flags {
		if flags[i].name == name {
			return &flags[i]
		}
	}
	return nil
}

// completeFlags offers option names, or an option's values for
// "--name=value".
func completeFlags(flags []complFlag, cur, workspace string) completion {
	if name, _, ok := strings.Cut(cur, "="); ok {
		if f := findComplFlag(flags, name); f != nil && f.value != valNone {
			return completeValue(f, cur[len(name)+1:], name+"=", workspace)
		}
		return completion{directive: "words"}
	}
	var cs []candidate
	for _, f := range flags {
		cs = append(cs, candidate{value: f.name})
	}
	return filtered("words", "", cur, cs)
}

// completeValue offers the values of option f for cur, the value typed so
// far; prefix is the text before it in the word ("--format=").
func completeValue(f *complFlag, cur, prefix, workspace string) completion {
	switch f.value {
	case valChoices:
		return filtered("words", prefix, cur, plain(f.choices))
	case valFiles:
		return filtered("files", prefix, cur, plain(f.extra))
	case valDirs:
		return completion{directive: "dirs", prefix: prefix}
	case valRefs:
		return filtered("words", prefix, cur, plain(gitRefs(workspace)))
	}
	return completion{directive: "words", prefix: prefix}
}

func completeArg(kind complKind, cur, workspace string) completion {
	switch kind {
	case valFiles:
		return completion{directive: "files"}
	case valPages:
		return filtered("words", "", cur, plain(pageNames(workspace)))
	case valTopics:
		var cs []candidate
		for _, t := range topics() {
			cs = append(cs, candidate{t.name, t.summary})
		}
		return filtered("words", "", cur, cs)
	}
	return completion{directive: "words"}
}

func plain(values []string) []candidate {
	cs := make([]candidate, len(values))
	for i, v := range values {
		cs[i] = candidate{value: v}
	}
	return cs
}

// filtered keeps the candidates that start with cur and puts prefix in
// front of each.
func filtered(directive, prefix, cur string, cs []candidate) completion {
	c := completion{directive: directive, prefix: prefix}
	for _, cd := range cs {
		if strings.HasPrefix(cd.value, cur) {
			c.cands = append(c.cands, candidate{prefix + cd.value, cd.desc})
		}
	}
	return c
}

// pageNames lists the names `hash` accepts for the pages of the workspace:
// the direct children of pages/ that are regular files, not symlinks,
// named *.md (echoes-conformance §8.2, echoes-conformance §8.1), without the suffix. A name
// that echoes-conformance §8.1 would change (surrounding blanks, a leading dot) cannot be
// asked for as it is, so it is not offered.
func pageNames(workspace string) []string {
	ws, err := gitvault.ResolveWorkspace(workspace)
	if err != nil {
		return nil
	}
	entries, err := os.ReadDir(ws.Pages)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || !e.Type().IsRegular() || stem == "" || strings.HasPrefix(stem, ".") || strings.TrimSpace(stem) != stem {
			continue
		}
		names = append(names, stem)
	}
	sort.Strings(names)
	return names
}

// gitRefs lists the revisions `check --rev` is most often given: HEAD,
// local and remote branches, tags.
func gitRefs(workspace string) []string {
	ws, err := gitvault.ResolveWorkspace(workspace)
	if err != nil || !ws.InGit {
		return nil
	}
	out, err := exec.Command("git", "-C", ws.Root, "for-each-ref", "--format=%(refname:short)",
		"refs/heads", "refs/tags", "refs/remotes").Output()
	if err != nil {
		return nil
	}
	refs := []string{"HEAD"}
	for _, r := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if r != "" {
			refs = append(refs, r)
		}
	}
	return refs
}
