package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/internal/manpage"
)

// The manual pages: git-echoes(1) and one page per command group
// (git-echoes-check(1), ...), generated from the command table in help.go
// (issue 8). docs/man holds the generated pages; man_test.go fails when
// they differ from what this code produces. Regenerate them with:
//
//go:generate go run . help --install-man ../../docs/man

const (
	manSource = "git-echoes"
	manManual = "Git Echoes Manual"
	// manSummary is the NAME line of git-echoes(1).
	manSummary = "shared project memory for coding agents, kept in Git"
	// manDate is the date the pages show. It is fixed, not the build
	// date, so that generating them is reproducible; move it forward when
	// the help texts change.
	manDate = "2026-12-02"
)

// manIntro opens the DESCRIPTION of git-echoes(1); the command overview
// (usageText) follows it.
const manIntro = `git-echoes keeps the project memory of coding agents (Claude Code, Codex,
OpenCode) in the repository, next to the code, as two kinds of vault: the
EchoesVault (EchoesVault/ and .echoes-vault/, EchoesVault Protocol 1.0.0),
which it writes natively, byte-compatible with the reference engine; and
the ECC memory vault (.ecc/memory/, ecc.memory.v1). Installed on PATH as
git-echoes, it runs as "git echoes COMMAND".

The EchoesVault commands print JSON (start and the status card print
Markdown). Global options go before the command.
`

// manExitStatus is the exit status of the EchoesVault commands
// (echoes-conformance §4.4); each command group documents its own.
const manExitStatus = `0  success
1  an unexpected failure
2  a usage error (the usage text on standard error), or an expected error:
   one line {"ok": false, "error": "..."} on standard error, nothing on
   standard output
`

// manPages builds every page, git-echoes(1) first.
func manPages() []*manpage.Page {
	main := &manpage.Page{Name: "git-echoes", Section: "1", Date: manDate, Source: manSource, Manual: manManual, Summary: manSummary}
	usage, overview := manpage.SplitUsage(usageText)
	main.Synopsis = append(usage, "git echoes help [COMMAND]", "git echoes --version")
	main.Sections = append(main.Sections,
		manpage.Section{Heading: "DESCRIPTION", Body: manpage.Text(manIntro + "\n" + overview)},
		manpage.Section{Heading: "OPTIONS", Body: manpage.Text(globalOptionsText())})
	pages := []*manpage.Page{main}
	seeAlso := []string{}
	for _, sec := range manSections {
		var body strings.Builder
		for _, t := range topics() {
			if t.section != sec {
				continue
			}
			if t.page != "" {
				body.WriteString(manpage.Subsection(t.name, manpage.Text(t.summary+".\nSee "+t.page+"(1), or run \"git echoes help "+t.name+"\".\n")))
				pages = append(pages, groupPage(t))
				seeAlso = append(seeAlso, t.page+"(1)")
				continue
			}
			u, rest := manpage.SplitUsage(t.text)
			body.WriteString(manpage.Subsection(t.name, manpage.Synopsis(u)+manpage.Text(rest)))
		}
		main.Sections = append(main.Sections, manpage.Section{Heading: sec, Body: body.String()})
	}
	main.Sections = append(main.Sections,
		manpage.Section{Heading: "EXIT STATUS", Body: manpage.Text("The EchoesVault commands exit with:\n\n" + indent(manExitStatus) +
			"\nThe command groups document their own exit status.\n")},
		manpage.Section{Heading: "SEE ALSO", Body: manpage.Text(strings.Join(append(seeAlso, "git(1)"), ", ") + "\n")})
	return pages
}

// groupPage is the page of a command group: its help text, whole, with
// the "Options:" list as OPTIONS and the "Exit status:" paragraph as EXIT
// STATUS, where man(7) readers look for them (issue 17).
func groupPage(t *helpTopic) *manpage.Page {
	usage, rest := manpage.SplitUsage(t.text)
	desc, options, exit := splitGroupText(rest)
	sections := []manpage.Section{{Heading: "DESCRIPTION", Body: manpage.Text(desc)}}
	if options != "" {
		sections = append(sections, manpage.Section{Heading: "OPTIONS", Body: manpage.Text(options)})
	}
	if exit != "" {
		sections = append(sections, manpage.Section{Heading: "EXIT STATUS", Body: manpage.Text(exit)})
	}
	sections = append(sections, manpage.Section{Heading: "SEE ALSO", Body: manpage.Text("git-echoes(1)\n")})
	return &manpage.Page{Name: t.page, Section: "1", Date: manDate, Source: manSource, Manual: manManual, Summary: t.summary,
		Synopsis: usage, Sections: sections}
}

// splitGroupText cuts the body of a command group's help text into its
// description, the list under an "Options:" line, and the "Exit status:"
// paragraph (the words after the colon, or the list under it). Each part
// ends at the next line that starts in the first column after a blank
// line; what follows goes back to the description, so nothing is lost.
func splitGroupText(rest string) (desc, options, exit string) {
	var d, o, x strings.Builder
	cur := &d
	blank := true
	for _, l := range strings.SplitAfter(rest, "\n") {
		body := strings.TrimRight(l, "\n")
		top := body != "" && body[0] != ' '
		switch {
		case top && body == "Options:":
			cur = &o
			blank = false
			continue
		case top && strings.HasPrefix(body, "Exit status:"):
			cur = &x
			blank = false
			if after := strings.TrimSpace(body[len("Exit status:"):]); after != "" {
				x.WriteString(after + "\n")
			}
			continue
		case top && blank && cur != &d:
			cur = &d
		}
		blank = body == ""
		if blank && cur != &d && cur.Len() == 0 {
			continue
		}
		cur.WriteString(l)
	}
	return d.String(), strings.TrimRight(o.String(), "\n") + nl(o.Len()), strings.TrimRight(x.String(), "\n") + nl(x.Len())
}

// nl is the one line end of a non-empty part.
func nl(n int) string {
	if n == 0 {
		return ""
	}
	return "\n"
}

// globalOptionsText lists the global options with the descriptions they
// are defined with (cli.go), in the help texts' layout.
func globalOptionsText() string {
	fs, _ := globalFlagSet()
	var b strings.Builder
	b.WriteString("Before the command:\n")
	arg := map[string]string{"workspace": "PATH", "agent": "NAME", "adapter-version": "V"}
	fs.VisitAll(func(f *pflag.Flag) {
		term := "--" + f.Name
		if a := arg[f.Name]; a != "" {
			term += " " + a
		}
		b.WriteString(definition(term, f.Usage))
	})
	b.WriteString(definition("-h, --help", "print the command overview; \"git echoes --help\" makes Git open this page instead"))
	return b.String()
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}

// installManPages writes every page into dir (git echoes help
// --install-man DIR).
func installManPages(dir string, stdout, stderr io.Writer) int {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "git echoes help: error: %v\n", err)
		return exitError
	}
	for _, p := range manPages() {
		path := filepath.Join(dir, p.Name+"."+p.Section)
		if err := os.WriteFile(path, p.Render(), 0o644); err != nil {
			fmt.Fprintf(stderr, "git echoes help: error: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "installed %s\n", path)
	}
	return exitOK
}
