package manpage

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

const sample = `usage: tool run [--fast] FILE
       tool run --list

Run FILE. A line starting with a dot
.like this one stays text, and 'quotes', ` + "`ticks`" + `, ~ and ^ and \ stay
what they are.

Options:
  --fast             skip the slow part; a description that goes on
                     to a second line
  --a-very-long-option-name
                     its description starts below
  -n N               a count

Run it like this:
  tool run --fast  file.txt
  tool run -n 2 x

Exit status:
  0  ok
  1  not ok
`

func TestSplitUsage(t *testing.T) {
	usage, rest := SplitUsage(sample)
	if strings.Join(usage, "|") != "tool run [--fast] FILE|tool run --list" {
		t.Errorf("usage %q", usage)
	}
	if !strings.HasPrefix(rest, "\nRun FILE.") {
		t.Errorf("rest %q", rest)
	}
	// A line wrapped to fit 80 columns continues the line above it; a
	// line that starts with a command word is another form.
	wrapped := "usage: tool run [--fast]\n                [--slow] FILE\n       tool list\n\nText.\n"
	if u, r := SplitUsage(wrapped); strings.Join(u, "|") != "tool run [--fast] [--slow] FILE|tool list" || r != "\nText.\n" {
		t.Errorf("wrapped usage: %q %q", u, r)
	}
	if u, r := SplitUsage("no usage line\n"); u != nil || r != "no usage line\n" {
		t.Errorf("no usage: %q %q", u, r)
	}
}

func TestText(t *testing.T) {
	_, rest := SplitUsage(sample)
	got := Text(rest)
	want := `.PP
Run FILE. A line starting with a dot
\&.like this one stays text, and \(aqquotes\(aq, \(gaticks\(ga, \(ti and \(ha and \e stay
what they are.
.PP
Options:
.TP
\fB\-\-fast\fR
skip the slow part; a description that goes on
to a second line
.TP
\fB\-\-a\-very\-long\-option\-name\fR
its description starts below
.TP
\fB\-n N\fR
a count
.PP
Run it like this:
.PP
.RS 4
.nf
tool run \-\-fast  file.txt
tool run \-n 2 x
.fi
.RE
.PP
Exit status:
.TP
\fB0\fR
ok
.PD 0
.TP
\fB1\fR
not ok
.PD
`
	if got != want {
		t.Errorf("Text:\n%s\nwant:\n%s", got, want)
	}
}

func TestVerbatimWhenNotAList(t *testing.T) {
	// An entry without a description makes the whole run verbatim,
	// keeping its relative indentation.
	got := Text("Commands:\n  init [--json]\n  save --title T\n       [--tag T]\n")
	want := ".PP\nCommands:\n.PP\n.RS 4\n.nf\ninit [\\-\\-json]\nsave \\-\\-title T\n     [\\-\\-tag T]\n.fi\n.RE\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestSynopsis(t *testing.T) {
	got := Synopsis([]string{"git echoes merge-driver install|uninstall [--workspace PATH]", "git echoes --version"})
	want := ".nf\n\\fBgit echoes merge\\-driver\\fR install|uninstall [\\-\\-workspace PATH]\n\\fBgit echoes\\fR \\-\\-version\n.fi\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestRender(t *testing.T) {
	p := &Page{Name: "tool-run", Section: "1", Date: "2026-01-02", Source: "tool", Manual: "Tool Manual",
		Summary: "run a file", Synopsis: []string{"tool run FILE"},
		Sections: []Section{{Heading: "DESCRIPTION", Body: Text("Runs it.\n")}, {Heading: "SEE ALSO", Body: Text("tool(1)\n")}}}
	got := string(p.Render())
	want := `.\" Generated from the git-echoes help texts; do not edit.
.TH TOOL\-RUN 1 "2026-01-02" tool "Tool Manual"
.nh
.ad l
.SH NAME
tool\-run \- run a file
.SH SYNOPSIS
.nf
\fBtool run\fR FILE
.fi
.SH DESCRIPTION
Runs it.
.SH "SEE ALSO"
tool(1)
`
	if got != want {
		t.Errorf("Render:\n%s\nwant:\n%s", got, want)
	}
	if s := Subsection("x y", ".PP\nText.\n"); s != ".SS \"x y\"\nText.\n" {
		t.Errorf("Subsection: %q", s)
	}
}

// The escapes come out as the ASCII characters a reader copies.
func TestRenderedCharacters(t *testing.T) {
	groff, err := exec.LookPath("groff")
	if err != nil {
		if os.Getenv("CI") == "true" && runtime.GOOS == "linux" {
			t.Fatal("groff is not installed (apt-get install groff-base)")
		}
		t.Skip("groff is not installed (apt-get install groff-base)")
	}
	p := &Page{Name: "t", Section: "1", Date: "2026-01-02", Source: "t", Manual: "T", Summary: "s",
		Sections: []Section{{Heading: "DESCRIPTION", Body: Text(`--opt 'a' "b" ` + "`c`" + ` ~/x a^b C:\dir` + "\n.dot\n")}}}
	for _, dev := range []string{"-Tascii", "-Tutf8"} {
		cmd := exec.Command(groff, "-man", dev, "-P", "-cbou")
		cmd.Stdin = bytes.NewReader(p.Render())
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if want := `--opt 'a' "b" ` + "`c`" + ` ~/x a^b C:\dir .dot`; !strings.Contains(strings.Join(strings.Fields(string(out)), " "), want) {
			t.Errorf("groff %s: %q does not contain %q", dev, out, want)
		}
	}
}
