package main

import (
	"regexp"

	"github.com/rogpeppe/go-internal/testscript"
)

// memidRe finds the id a memory save printed, in text ("ID: ...") or JSON
// ("id": "...") form.
var memidRe = regexp.MustCompile(`(?:ID: |"id": ")(mem_[a-z0-9_-]+)`)

func init() {
	// memid VAR: set VAR to the memory id in the previous command's stdout,
	// so scripts can read back what they saved (ids are random).
	scriptCmds["memid"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: memid VAR")
		}
		m := memidRe.FindStringSubmatch(ts.ReadFile("stdout"))
		if m == nil {
			ts.Fatalf("no memory id in stdout")
		}
		ts.Setenv(args[0], m[1])
	}
}
