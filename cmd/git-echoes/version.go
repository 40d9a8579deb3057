package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/internal/buildinfo"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// `git echoes version` and the global `--version` (issue 8): which build
// this is and which contract versions it implements.

func init() { registerCommand("version", runVersion) }

const versionUsage = `usage: git echoes version [--format text|json]
       git echoes --version

Print the git-echoes version, the commit and date it was built from, the Go
toolchain, the platform, the EchoesVault Protocol version it implements and
the engine version it reports. --version prints the same text.

Options:
  --format FORMAT    text (default), or json: one object with version,
                     commit, date, modified, goVersion, protocolVersion,
                     engineVersion, os and arch (commit and date are null
                     when unknown)
`

func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("version", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "text", "")
	fail := func(msg string) int {
		fmt.Fprintf(stderr, "%sgit echoes version: error: %s\n", versionUsage, msg)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, versionUsage)
			return exitOK
		}
		return fail(err.Error())
	}
	if fs.NArg() > 0 {
		return fail("unrecognized arguments: " + strings.Join(fs.Args(), " "))
	}
	in := buildinfo.Get()
	switch *format {
	case "text":
		io.WriteString(stdout, versionText(in))
	case "json":
		io.WriteString(stdout, pyjson.Pretty(versionJSON(in)))
	default:
		return fail("--format must be text or json, not " + pyjson.ReprString(*format))
	}
	return exitOK
}

// versionText is the human form. The first line has Git's own shape
// ("git version 2.43.0") so that scripts can take the third word.
func versionText(in buildinfo.Info) string {
	orUnknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	commit := orUnknown(in.Commit)
	if in.Modified {
		commit += " (modified)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "git-echoes version %s\n", in.Version)
	fmt.Fprintf(&b, "  commit:   %s\n", commit)
	fmt.Fprintf(&b, "  date:     %s\n", orUnknown(in.Date))
	fmt.Fprintf(&b, "  go:       %s\n", in.GoVersion)
	fmt.Fprintf(&b, "  platform: %s/%s\n", in.OS, in.Arch)
	fmt.Fprintf(&b, "  protocol: EchoesVault Protocol %s\n", in.ProtocolVersion)
	fmt.Fprintf(&b, "  engine:   %s\n", in.EngineVersion)
	return b.String()
}

func versionJSON(in buildinfo.Info) pyjson.Value {
	orNull := func(s string) pyjson.Value {
		if s == "" {
			return pyjson.NullValue()
		}
		return pyjson.Str(s)
	}
	return pyjson.ObjectValue(pyjson.NewObj().
		Set("version", pyjson.Str(in.Version)).
		Set("commit", orNull(in.Commit)).
		Set("date", orNull(in.Date)).
		Set("modified", pyjson.Boolean(in.Modified)).
		Set("goVersion", pyjson.Str(in.GoVersion)).
		Set("protocolVersion", pyjson.Str(in.ProtocolVersion)).
		Set("engineVersion", pyjson.Str(in.EngineVersion)).
		Set("os", pyjson.Str(in.OS)).
		Set("arch", pyjson.Str(in.Arch)))
}
