package main

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/manpage"
)

// runCLI runs the program in process.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// Every command the program dispatches has a help topic, and every topic
// is a command (issue 8: "git echoes help [command] that always works").
func TestHelpCoversEveryCommand(t *testing.T) {
	commands := map[string]bool{}
	for name := range runtimeCommands {
		commands[name] = true
	}
	for name := range extraCommands {
		if name != completeCommand {
			commands[name] = true
		}
	}
	topicNames := map[string]bool{}
	for _, tp := range topics() {
		topicNames[tp.name] = true
		if !commands[tp.name] {
			t.Errorf("help topic %q is not a command", tp.name)
		}
	}
	for name := range commands {
		if !topicNames[name] {
			t.Errorf("command %q has no help topic", name)
		}
		// The overview names every command too.
		if !regexp.MustCompile(`(?m)^  (.*[ |])?` + regexp.QuoteMeta(name) + `([ |]|$)`).MatchString(usageText) {
			t.Errorf("the overview (git echoes --help) does not list %q", name)
		}
	}
}

func TestHelpPrintsEachTopic(t *testing.T) {
	for _, tp := range topics() {
		for _, name := range append([]string{tp.name}, tp.aliases...) {
			code, out, errOut := runCLI("help", name)
			if code != 0 || out != tp.text || errOut != "" {
				t.Errorf("help %s: exit %d, stderr %q, stdout %q", name, code, errOut, out)
			}
		}
		if !strings.HasPrefix(tp.text, "usage: git echoes "+tp.name) && !strings.HasPrefix(tp.text, "Usage: git echoes "+tp.name) {
			t.Errorf("help %s does not start with its usage line: %q", tp.name, firstLineOf(tp.text))
		}
		// The command's own --help: the same text for the groups; for the
		// runtime commands, the usage line argparse-style (unchanged).
		code, out, _ := runCLI(tp.name, "--help")
		if code != 0 {
			t.Errorf("%s --help: exit %d", tp.name, code)
		}
		if tp.section == secVault && tp.page == "" { // a runtime command
			if strings.TrimRight(out, " \n") != firstLineOf(tp.text) {
				t.Errorf("%s --help prints %q, help %s starts %q", tp.name, out, tp.name, firstLineOf(tp.text))
			}
		} else if out != tp.text {
			t.Errorf("%s --help and help %s differ:\n%s\n---\n%s", tp.name, tp.name, out, tp.text)
		}
	}
}

func firstLineOf(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func TestHelpOverview(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		code, out, errOut := runCLI(args...)
		if code != 0 || out != usageText || errOut != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q", args, code, errOut, out)
		}
	}
	for args, want := range map[string]string{
		"merge driver":       "merge-driver",
		"merge":              "merge-driver",
		"memory save":        "memory",
		"hooks install":      "hooks",
		"hook session-start": "hook",
		"session-start":      "hook",
		"completion bash":    "completion",
	} {
		code, out, _ := runCLI(append([]string{"help"}, strings.Fields(args)...)...)
		if code != 0 || out != lookupTopic(want).text {
			t.Errorf("help %s: exit %d, not the help of %s", args, code, want)
		}
	}
	code, out, errOut := runCLI("help", "no-such-command")
	if code != 2 || out != "" || !strings.HasPrefix(errOut, helpUsage) ||
		!strings.HasSuffix(errOut, "git echoes help: error: no help for \"no-such-command\": not a git echoes command (git echoes help lists them)\n") {
		t.Errorf("help no-such-command: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, _ := runCLI("help", "--install-man"); code != 2 {
		t.Errorf("help --install-man without a directory: exit %d", code)
	}
}

var flagMention = regexp.MustCompile(`--[a-z][a-z0-9-]*[a-z0-9]`)

// mentionedFlags lists the options named in text, but for --help.
func mentionedFlags(text string) []string {
	set := map[string]bool{}
	for _, f := range flagMention.FindAllString(text, -1) {
		if f != "--help" {
			set[f] = true
		}
	}
	return sortedKeys(set)
}

func sortedKeys(set map[string]bool) []string {
	var out []string
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func complFlagNames(flags []complFlag) []string {
	set := map[string]bool{}
	for _, f := range flags {
		set[f.name] = true
	}
	return sortedKeys(set)
}

// memoryCommandLines maps each memory command to its lines in the
// "Commands:" block of memoryUsage.
func memoryCommandLines(t *testing.T) map[string]string {
	_, rest := manpage.SplitUsage(memoryUsage)
	block, _, _ := strings.Cut(rest[strings.Index(rest, "Commands:\n")+len("Commands:\n"):], "\n\n")
	lines := map[string]string{}
	cur := ""
	for _, l := range strings.Split(block, "\n") {
		if !strings.HasPrefix(l, "   ") {
			cur = strings.Fields(l)[0]
		}
		lines[cur] += l + "\n"
	}
	if len(lines) != 6 {
		t.Fatalf("memory commands in memoryUsage: %v", lines)
	}
	return lines
}

// Completion offers exactly the options each command's synopsis shows, so
// that a new option cannot be documented without being completed, or the
// other way round.
func TestCompletionFlagsMatchHelp(t *testing.T) {
	for _, tp := range topics() {
		if tp.name == "memory" {
			continue
		}
		usage, _ := manpage.SplitUsage(tp.text)
		var own []string // not "git echoes --version", a global option
		for _, u := range usage {
			if strings.HasPrefix(u, "git echoes "+tp.name) {
				own = append(own, u)
			}
		}
		want := mentionedFlags(strings.Join(own, "\n"))
		flags := tp.compl.flags
		for _, sub := range tp.compl.subs {
			flags = append(flags, sub.flags...)
		}
		got := complFlagNames(flags)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: completion offers %v, the usage shows %v", tp.name, got, want)
		}
	}
	lines := memoryCommandLines(t)
	all := map[string]bool{}
	for _, sub := range lookupTopic("memory").compl.subs {
		for _, f := range sub.flags {
			all[f.name] = true
		}
		if sub.name == "help" {
			continue
		}
		want := mentionedFlags(lines[sub.name])
		got := complFlagNames(sub.flags)
		if sub.name == "handoff" {
			// "[options]": handoff takes save's options but --kind (a
			// handoff's kind is fixed) and --source-harness (it is --from).
			want = complFlagNames(lookupTopic("memory").compl.subs[1].flags)
			want = remove(want, "--kind", "--source-harness")
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("memory %s: completion offers %v, the usage shows %v", sub.name, got, want)
		}
	}
	// And together they are every option the memory parser knows.
	parser := map[string]bool{"--json": true, "--stdin": true}
	for f := range memoryValueOpts {
		parser[f] = true
	}
	for f := range memoryRepeatOpts {
		parser[f] = true
	}
	if strings.Join(sortedKeys(all), " ") != strings.Join(sortedKeys(parser), " ") {
		t.Errorf("memory completion %v, parser %v", sortedKeys(all), sortedKeys(parser))
	}
}

func remove(list []string, drop ...string) []string {
	var out []string
	for _, s := range list {
		keep := true
		for _, d := range drop {
			keep = keep && s != d
		}
		if keep {
			out = append(out, s)
		}
	}
	return out
}

// Every option completion offers is one the command accepts: given it
// (with a value when it takes one) before --help, the command still
// prints its help and exits 0 instead of a usage error.
func TestCompletionFlagsAreAccepted(t *testing.T) {
	try := func(prefix []string, f complFlag, helpText string) {
		args := append(append([]string(nil), prefix...), f.name)
		switch {
		case f.value == valChoices:
			args = append(args, f.choices[0])
		case f.value != valNone:
			args = append(args, "1") // also a valid number (--max-output, --limit)
		}
		code, out, errOut := runCLI(append(args, "--help")...)
		if code != 0 || !strings.HasPrefix(helpText, firstLineOf(out)) {
			t.Errorf("%v --help: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	for _, tp := range topics() {
		for _, f := range tp.compl.flags {
			try([]string{tp.name}, f, tp.text)
		}
		for _, sub := range tp.compl.subs {
			for _, f := range sub.flags {
				try([]string{tp.name, sub.name}, f, tp.text)
			}
		}
	}
	// The check itself can fail: an unknown option is refused.
	if code, _, _ := runCLI("check", "--no-such-option", "--help"); code != 2 {
		t.Errorf("check --no-such-option: exit %d", code)
	}
}

// TestHelpFitsEightyColumns (issue 17: "check --help has a 104-column
// line"): every line of the overview and of every command's help, as
// --help and `help NAME` print them, fits a terminal of 80 columns.
func TestHelpFitsEightyColumns(t *testing.T) {
	texts := map[string]string{"git echoes --help": usageText}
	for _, tp := range topics() {
		texts["git echoes help "+tp.name] = tp.text
	}
	for name, text := range texts {
		for i, l := range strings.Split(text, "\n") {
			if w := columns(l); w > 80 {
				t.Errorf("%s, line %d: %d columns:\n%s", name, i+1, w, l)
			}
		}
	}
}
