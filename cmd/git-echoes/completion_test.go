package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

func init() { scriptCmds["needtool"] = cmdNeedTool }

// needtool NAME [HINT]: on a Linux CI run, fail when the program NAME is
// missing: there it is a set-up error (.ci/run installs it) that must not
// pass as a skip. Elsewhere it does nothing; the script's following
// "[!exec:NAME] skip" line skips with the reason.
func cmdNeedTool(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: needtool NAME [HINT]")
	}
	if _, err := exec.LookPath(args[0]); err != nil && os.Getenv("CI") == "true" && runtime.GOOS == "linux" {
		ts.Fatalf("%s is not installed (%s)", args[0], strings.Join(args[1:], " "))
	}
}

// needTool is needtool for Go tests.
func needTool(t *testing.T, name, hint string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" && runtime.GOOS == "linux" {
		t.Fatalf("%s is not installed (%s)", name, hint)
	}
	t.Skipf("%s is not installed (%s)", name, hint)
	return ""
}

func values(c completion) []string {
	var vs []string
	for _, cd := range c.cands {
		vs = append(vs, cd.value)
	}
	return vs
}

// makeVault lays out pages for the page-name completion: only regular
// *.md files directly in pages/ that hash can be asked for by name count
// (echoes-conformance §8.1, echoes-conformance §8.2).
func makeVault(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	pages := filepath.Join(ws, "EchoesVault", "pages")
	for _, f := range []string{"alpha.md", "Beta note.md", colonPage + ".md", ".hidden.md", " padded.md", "upper.MD", "notes.txt", "sub/inner.md"} {
		if f == ".md" {
			continue
		}
		p := filepath.Join(pages, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(pages, "dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !canSymlink() {
		t.Logf("no symbolic links here (see [cansymlink]): the symlinked page is not part of this run")
	} else if err := os.Symlink("alpha.md", filepath.Join(pages, "link.md")); err != nil {
		t.Fatal(err)
	}
	return ws
}

// colonPage is a page name with a colon, which a shell's completion treats
// as a word break; Windows has no such file names ("a:b" names a stream).
var colonPage = map[bool]string{true: "", false: "a:b"}[runtime.GOOS == "windows"]

// withColon lists names, the colon page in its sorted place where it exists.
func withColon(names ...string) []string {
	var out []string
	for _, n := range names {
		if n != "a:b" || colonPage != "" {
			out = append(out, n)
		}
	}
	return out
}

func TestComplete(t *testing.T) {
	ws := makeVault(t)
	ts := []struct {
		words     []string
		cur       string
		directive string
		prefix    string
		want      []string
	}{
		{nil, "sta", "words", "", []string{"status", "start", "stale"}}, // table order
		{nil, "", "words", "", commandNames()},
		{nil, "--w", "words", "", []string{"--workspace"}},
		{nil, "--", "words", "", []string{"--workspace", "--agent", "--adapter-version", "--version", "--help"}},
		{[]string{"--workspace"}, "", "dirs", "", nil},
		{nil, "--workspace=", "dirs", "--workspace=", nil},
		{[]string{"--workspace", ws}, "h", "words", "", []string{"hydrate", "hash"}},
		{nil, "h", "words", "", []string{"hydrate", "hash", "hooks", "hook", "help"}},
		// The command groups do not take global options before them.
		{[]string{"--workspace", ws, "hooks"}, "", "words", "", nil},
		{[]string{"--agent", "x"}, "rebuild", "words", "", []string{"rebuild-index"}},
		// Page names for hash, from the workspace given before the command.
		{[]string{"--workspace", ws, "hash"}, "", "words", "", withColon("Beta note", "a:b", "alpha")},
		{[]string{"--workspace=" + ws, "hash"}, "a", "words", "", withColon("a:b", "alpha")},
		{[]string{"--workspace", ws, "hash", "alpha"}, "", "words", "", nil},
		// Options and their values.
		{[]string{"search"}, "--", "words", "", []string{"--limit", "--rev", "--help"}},
		{[]string{"inspect"}, "--format=c", "words", "--format=", []string{"--format=card"}},
		{[]string{"status", "--format"}, "", "words", "", []string{"json", "card"}},
		{[]string{"end"}, "--c", "words", "", []string{"--confirm-explicit-user-end"}},
		{[]string{"upsert", "--payload"}, "", "files", "", []string{"-"}},
		{[]string{"append"}, "--payload=", "files", "--payload=", []string{"--payload=-"}},
		{[]string{"start", "--recent"}, "", "words", "", nil},
		{[]string{"check"}, "--f", "words", "", []string{"--format"}},
		{[]string{"check", "--format"}, "g", "words", "", []string{"github"}},
		{[]string{"check"}, "--format=", "words", "--format=", []string{"--format=text", "--format=json", "--format=github", "--format=codequality"}},
		{[]string{"check", "--workspace"}, "", "dirs", "", nil},
		// Subcommands.
		{[]string{"hooks"}, "", "words", "", []string{"install", "uninstall", "status"}},
		{[]string{"hooks", "--force"}, "un", "words", "", []string{"uninstall"}},
		{[]string{"hooks", "install"}, "", "words", "", nil},
		{[]string{"hooks", "install"}, "--", "words", "", []string{"--force", "--workspace", "--help"}},
		{[]string{"hooks"}, "--f", "words", "", []string{"--force"}},
		{[]string{"merge-driver"}, "", "files", "", []string{"install", "uninstall"}},
		{[]string{"merge-driver", "base.md"}, "", "files", "", nil},
		{[]string{"merge-driver", "install"}, "", "words", "", nil},
		{[]string{"merge-driver", "install"}, "--bi", "words", "", []string{"--binary"}},
		{[]string{"merge-driver", "install", "--binary"}, "", "files", "", nil},
		{[]string{"merge-driver"}, "--d", "words", "", []string{"--diff3"}},
		{[]string{"hook"}, "", "words", "", []string{"session-start"}},
		{[]string{"memory"}, "s", "words", "", []string{"save", "search"}},
		{[]string{"memory"}, "--", "words", "", []string{"--help"}},
		{[]string{"memory", "search"}, "--k", "words", "", []string{"--kind"}},
		{[]string{"memory", "save", "--kind"}, "d", "words", "", []string{"decision"}},
		{[]string{"memory", "init", "--scope"}, "", "words", "", []string{"project", "team", "user"}},
		{[]string{"memory", "save", "--body-file"}, "", "files", "", nil},
		{[]string{"memory", "read"}, "--", "words", "", []string{"--scope", "--rev", "--json", "--help"}},
		{[]string{"mcp"}, "--m", "words", "", []string{"--memory", "--max-output"}},
		{[]string{"help"}, "me", "words", "", []string{"merge-driver", "memory"}},
		{[]string{"help", "--install-man"}, "", "dirs", "", nil},
		{[]string{"help", "check"}, "", "words", "", nil},
		{[]string{"version", "--format"}, "", "words", "", []string{"text", "json"}},
		{[]string{"completion"}, "", "words", "", []string{"bash", "zsh", "fish", "powershell"}},
		{[]string{"completion"}, "p", "words", "", []string{"powershell"}},
		// Nothing for what is not a command (an alias of help only, the
		// hidden completion command, a typo).
		{[]string{"merge"}, "", "words", "", nil},
		{[]string{completeCommand}, "", "words", "", nil},
		{[]string{"nope"}, "--", "words", "", nil},
	}
	for _, tt := range ts {
		c := complete(tt.words, tt.cur)
		if c.directive != tt.directive || c.prefix != tt.prefix || strings.Join(values(c), "|") != strings.Join(tt.want, "|") {
			t.Errorf("complete(%q, %q) = %s %q %q, want %s %q %q", tt.words, tt.cur,
				c.directive, c.prefix, values(c), tt.directive, tt.prefix, tt.want)
		}
	}
}

func commandNames() []string {
	var names []string
	for _, tp := range topics() {
		names = append(names, tp.name)
	}
	return names
}

// check --rev completes the revisions of the repository, with real git
// creating them.
func TestCompleteRefs(t *testing.T) {
	needTool(t, "git", "apt-get install git")
	testenv.TempGit(t).Setenv(t)
	repo := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "one"},
		{"branch", "feature/x"},
		{"tag", "v1.0.0"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	c := complete([]string{"check", "--workspace", repo, "--rev"}, "")
	if got := strings.Join(values(c), " "); got != "HEAD feature/x main v1.0.0" {
		t.Errorf("check --rev: %q", got)
	}
	c = complete([]string{"check", "--workspace=" + repo}, "--rev=f")
	if got := strings.Join(values(c), " "); got != "--rev=feature/x" || c.prefix != "--rev=" {
		t.Errorf("check --rev=f: %q prefix %q", got, c.prefix)
	}
}

// The protocol the scripts read: a directive line, then one candidate a
// line with its description after a tab.
func TestCompleteProtocol(t *testing.T) {
	ws := makeVault(t)
	code, out, errOut := runCLI(completeCommand, "--cur=sta")
	want := "words\nstatus\t" + lookupTopic("status").summary + "\nstart\t" + lookupTopic("start").summary +
		"\nstale\t" + lookupTopic("stale").summary + "\n"
	if code != 0 || out != want || errOut != "" {
		t.Errorf("__complete --cur=sta: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, out, _ := runCLI(completeCommand, "--cur=--format=j", "check"); code != 0 || out != "words\t--format=\n--format=json\n" {
		t.Errorf("__complete check --format=j: exit %d, %q", code, out)
	}
	// A page name with a newline cannot travel on one line: left out.
	if err := os.WriteFile(filepath.Join(ws, "EchoesVault", "pages", "two\nlines.md"), nil, 0o644); err != nil {
		t.Logf("cannot create a name with a newline here (%v)", err)
	}
	if code, out, _ := runCLI(completeCommand, "--cur=", "--workspace", ws, "hash"); code != 0 || out != "words\n"+strings.Join(withColon("Beta note", "a:b", "alpha"), "\n")+"\n" {
		t.Errorf("__complete hash: exit %d, %q", code, out)
	}
	if code, _, errOut := runCLI(completeCommand, "sta"); code != 2 || !strings.Contains(errOut, "--cur=") {
		t.Errorf("__complete without --cur: exit %d, %q", code, errOut)
	}
	// It is hidden: not offered, not a help topic.
	if lookupTopic(completeCommand) != nil {
		t.Error("__complete has a help topic")
	}
}

func TestCompletionCommand(t *testing.T) {
	for shell, script := range completionScripts {
		code, out, errOut := runCLI("completion", shell)
		if code != 0 || out != script || errOut != "" {
			t.Errorf("completion %s: exit %d, stderr %q", shell, code, errOut)
		}
		// Every script relays to the same hidden command.
		if !strings.Contains(script, "git-echoes __complete \"--cur=") {
			t.Errorf("completion %s does not call git-echoes __complete --cur=", shell)
		}
	}
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		code, out, errOut := runCLI(args...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, completionUsage) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// No PowerShell on Debian: the script is checked as text. It registers a
// native completer for both names of the binary, reads the words before
// the cursor from the syntax tree, returns CompletionResult objects, and
// its brackets and quotes balance.
func TestCompletionPowerShellText(t *testing.T) {
	s := completionScripts["powershell"]
	for _, want := range []string{
		"Register-ArgumentCompleter -Native -CommandName 'git-echoes', 'git-echoes.exe' -ScriptBlock {",
		"param($wordToComplete, $commandAst, $cursorPosition)",
		"$commandAst.CommandElements | Select-Object -Skip 1",
		"if ($element.Extent.EndOffset -ge $cursorPosition) { break }",
		`& git-echoes __complete "--cur=$wordToComplete" @words 2>$null`,
		"[System.Management.Automation.CompletionResult]::new($text, $value, 'ParameterValue', $tip)",
		"-split \"`t\", 2",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("powershell script lacks %q", want)
		}
	}
	code := stripPowerShellStrings(t, s)
	for _, pair := range []string{"{}", "()", "[]"} {
		if o, c := strings.Count(code, pair[:1]), strings.Count(code, pair[1:]); o != c {
			t.Errorf("powershell script: %d %q but %d %q", o, pair[:1], c, pair[1:])
		}
	}
}

// stripPowerShellStrings removes comments and string literals ('...' with
// doubled quotes inside, "..." with backtick escapes), failing on an
// unterminated one.
func stripPowerShellStrings(t *testing.T, s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case '\'', '"':
			j := i + 1
			for ; j < len(s); j++ {
				if c == '"' && s[j] == '`' {
					j++
					continue
				}
				if s[j] == c {
					if c == '\'' && j+1 < len(s) && s[j+1] == '\'' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(s) {
				t.Fatalf("unterminated string at %q", s[i:min(i+40, len(s))])
			}
			i = j
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
