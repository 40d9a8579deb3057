package main

import (
	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault/health"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// inspect and status are the read-only health report
// (echoes-conformance §15.6); status is an exact alias.
func init() {
	cmd := runtimeCommand{synopsis: "[--format json|card]",
		flags: func(fs *pflag.FlagSet) map[string]*string {
			return map[string]*string{"format": fs.String("format", "json", "json or card")}
		},
		run: func(inv *invocation) (string, error) {
			format := inv.flag("format")
			if err := checkFormat(format); err != nil {
				return "", err
			}
			return renderInspection(health.Inspect(inv.eng), format), nil
		}}
	runtimeCommands["inspect"] = cmd
	runtimeCommands["status"] = cmd
}

func renderInspection(in *health.Inspection, format string) string {
	if format == "card" {
		return in.Card()
	}
	return pyjson.Pretty(in.JSON())
}
