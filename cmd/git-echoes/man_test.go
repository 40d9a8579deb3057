package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/manpage"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

const manDir = "../../docs/man"

// docs/man is what the generator makes of the help texts, byte for byte,
// and nothing else (issue 8: "a test fails when they drift").
func TestManPagesUpToDate(t *testing.T) {
	want := map[string][]byte{}
	for _, p := range manPages() {
		want[p.Name+"."+p.Section] = p.Render()
	}
	entries, err := os.ReadDir(manDir)
	if err != nil {
		t.Fatal(err)
	}
	var stale []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue // .gitattributes: LF endings on every checkout
		}
		got, err := os.ReadFile(filepath.Join(manDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if w, ok := want[e.Name()]; !ok || !bytes.Equal(got, w) {
			stale = append(stale, e.Name())
		}
		delete(want, e.Name())
	}
	for name := range want {
		stale = append(stale, name+" (missing)")
	}
	if len(stale) > 0 {
		sort.Strings(stale)
		t.Errorf("docs/man differs from the help texts: %s\nregenerate with: go generate ./cmd/git-echoes", strings.Join(stale, ", "))
	}
}

// Both formatters take every page without a warning: groff (man-db, most
// Linux systems) and mandoc (macOS, the BSDs).
func TestManPagesLint(t *testing.T) {
	groff := needTool(t, "groff", "apt-get install groff-base")
	for _, p := range manPages() {
		src := p.Render()
		cmd := exec.Command(groff, "-man", "-ww", "-z")
		cmd.Stdin = bytes.NewReader(src)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("groff -man -ww -z %s: %v\n%s", p.Name, err, out)
		}
	}
	mandoc := needTool(t, "mandoc", "apt-get install mandoc")
	for _, p := range manPages() {
		cmd := exec.Command(mandoc, "-Tlint", "-W", "warning")
		cmd.Stdin = bytes.NewReader(p.Render())
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("mandoc -Tlint %s: %v\n%s", p.Name, err, out)
		}
	}
}

var blanks = regexp.MustCompile(`\s+`)

func words(s string) string { return strings.TrimSpace(blanks.ReplaceAllString(s, " ")) }

// renderText formats a page as plain text, as man shows it.
func renderText(t *testing.T, groff string, p *manpage.Page) string {
	t.Helper()
	cmd := exec.Command(groff, "-man", "-Tascii", "-P", "-cbou", "-rLL=100n")
	cmd.Stdin = bytes.NewReader(p.Render())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("groff %s: %v", p.Name, err)
	}
	return string(out)
}

// What a reader sees in the formatted pages is the help text, word for
// word: each topic's usage lines and body, the overview, and the global
// options, once the blanks are set aside.
func TestManPagesHoldHelpTexts(t *testing.T) {
	groff := needTool(t, "groff", "apt-get install groff-base")
	rendered := map[string]string{}
	for _, p := range manPages() {
		rendered[p.Name] = words(renderText(t, groff, p))
	}
	check := func(page, what, text string) {
		t.Helper()
		if !strings.Contains(rendered[page], words(text)) {
			t.Errorf("%s(1) lacks %s:\n%s", page, what, words(text))
		}
	}
	_, overview := manpage.SplitUsage(usageText)
	check("git-echoes", "the overview", overview)
	check("git-echoes", "the introduction", manIntro)
	for _, tp := range topics() {
		page := tp.page
		if page == "" {
			page = "git-echoes"
		} else {
			check("git-echoes", "the summary of "+tp.name, tp.summary)
		}
		usage, body := manpage.SplitUsage(tp.text)
		for _, u := range usage {
			check(page, "the usage of "+tp.name, u)
		}
		if tp.page == "" {
			check(page, "the help of "+tp.name, body)
			continue
		}
		// A group page holds its help in three sections (groupPage).
		desc, options, exit := splitGroupText(body)
		check(page, "the help of "+tp.name, desc)
		check(page, "the options of "+tp.name, options)
		check(page, "the exit status of "+tp.name, exit)
	}
	fs, _ := globalFlagSet()
	for _, name := range []string{"workspace", "agent", "adapter-version", "version"} {
		check("git-echoes", "the global option --"+name, "--"+name)
		check("git-echoes", "the description of --"+name, fs.Lookup(name).Usage)
	}
}

// man finds the installed pages, and Git shows git-echoes(1) for both "git
// help echoes" and "git echoes --help" (Git turns the latter into the
// former), with real git and man as the referees. Before the install
// step, Git reports no manual entry, as the issue describes.
func TestGitHelpOpensManPage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("man-db is the Linux man; git help on Windows opens HTML pages")
	}
	gitPath := needTool(t, "git", "apt-get install git")
	manPath := needTool(t, "man", "apt-get install man-db")
	home := t.TempDir()
	prefix := filepath.Join(home, "prefix")
	pages := filepath.Join(prefix, "share", "man", "man1")
	if err := os.MkdirAll(filepath.Join(prefix, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	g, err := testenv.NewGit(home, filepath.Join(home, ".gitconfig"), "")
	if err != nil {
		t.Fatal(err)
	}
	// PATH holds git-echoes (testscript.Main).
	base := append(g.Environ(), "LANG=C.UTF-8", "MANPAGER=cat", "PAGER=cat", "MANWIDTH=80")
	run := func(env []string, name string, args ...string) (string, error) {
		cmd := exec.Command(name, args...)
		cmd.Env, cmd.Dir = env, home
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	if out, err := run(base, gitPath, "config", "--global", "help.format", "man"); err != nil {
		t.Fatalf("git config: %v\n%s", err, out)
	}
	withManpath := append(append([]string(nil), base...), "MANPATH="+filepath.Join(prefix, "share", "man"))

	out, err := run(withManpath, gitPath, "help", "echoes")
	if err == nil || !strings.Contains(out, "No manual entry for git-echoes") {
		t.Errorf("git help echoes before the install: %v\n%s", err, out)
	}

	if out, err := run(base, "git-echoes", "help", "--install-man", pages); err != nil || !strings.Contains(out, "installed "+filepath.Join(pages, "git-echoes.1")+"\n") {
		t.Fatalf("git echoes help --install-man: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"help", "echoes"}, {"echoes", "--help"}} {
		out, err := run(withManpath, gitPath, args...)
		if err != nil || !strings.Contains(out, "GIT-ECHOES(1)") ||
			!strings.Contains(out, "git-echoes - shared project memory for coding agents, kept in Git") ||
			!strings.Contains(out, "git echoes completion bash|zsh|fish|powershell") {
			t.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	out, err = run(withManpath, manPath, "git-echoes-memory")
	if err != nil || !strings.Contains(out, "GIT-ECHOES-MEMORY(1)") || !strings.Contains(out, "ECC_MEMORY_HARNESS") {
		t.Errorf("man git-echoes-memory: %v\n%s", err, out)
	}
	// Without MANPATH, man-db searches the share/man next to each bin
	// directory on PATH: installing next to a go install'ed binary
	// ($(go env GOPATH)/share/man/man1) needs no configuration.
	// (The later PATH wins: os/exec keeps the last of duplicate entries.)
	withBin := append(append([]string(nil), base...), "PATH="+filepath.Join(prefix, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err = run(withBin, manPath, "-w", "git-echoes")
	if err != nil || strings.TrimSpace(out) != filepath.Join(pages, "git-echoes.1") {
		t.Errorf("man -w git-echoes with %s/bin on PATH: %v\n%s", prefix, err, out)
	}
}

// TestGroupPageSections (issue 17: "the group pages put options and exit
// status inside DESCRIPTION"): a group's "Options:" list and "Exit
// status:" paragraph become the page's OPTIONS and EXIT STATUS sections;
// every other line stays in DESCRIPTION, in order.
func TestGroupPageSections(t *testing.T) {
	rest := "\nDoes things.\n\nOptions:\n  --fast   go fast\n  --slow   go slow\n\nExit status: 0 ok, 1 not ok,\n2 usage.\n\nSee also the README.\n"
	desc, options, exit := splitGroupText(rest)
	if desc != "\nDoes things.\n\nSee also the README.\n" {
		t.Errorf("description %q", desc)
	}
	if options != "  --fast   go fast\n  --slow   go slow\n" {
		t.Errorf("options %q", options)
	}
	if exit != "0 ok, 1 not ok,\n2 usage.\n" {
		t.Errorf("exit status %q", exit)
	}
	desc, _, exit = splitGroupText("\nText.\n\nExit status:\n  0  ok\n  1  not ok\n")
	if desc != "\nText.\n\n" || exit != "  0  ok\n  1  not ok\n" {
		t.Errorf("listed exit status: %q %q", desc, exit)
	}
	// Every group page that has an "Options:" list or an exit status in
	// its help shows it in its own section, not in DESCRIPTION.
	for _, tp := range topics() {
		if tp.page == "" {
			continue
		}
		page := string(groupPage(tp).Render())
		d := page[strings.Index(page, ".SH DESCRIPTION"):]
		if i := strings.Index(d, "\n.SH "); i >= 0 {
			d = d[:i]
		}
		if strings.Contains(tp.text, "\nExit status:") && (!strings.Contains(page, ".SH \"EXIT STATUS\"") && !strings.Contains(page, ".SH EXIT STATUS") || strings.Contains(d, "Exit status")) {
			t.Errorf("%s: exit status not in its own section", tp.page)
		}
		if strings.Contains(tp.text, "\nOptions:\n") && (!strings.Contains(page, ".SH OPTIONS") || strings.Contains(d, "Options:")) {
			t.Errorf("%s: options not in their own section", tp.page)
		}
	}
}
