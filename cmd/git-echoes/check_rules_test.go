package main

import (
	"github.com/git-echoes/git-echoes/gitvault/gate"
	"regexp"
	"testing"
)

// check --help documents every rule of the gate with its severity, in the
// engine's order, and nothing else in its table.
func TestCheckHelpRuleTable(t *testing.T) {
	row := regexp.MustCompile(`(?m)^  ([a-z-]+) +(error|warning)  `)
	rows := row.FindAllStringSubmatch(checkUsage, -1)
	if len(rows) != len(gate.CheckRules) {
		t.Fatalf("check --help lists %d rules, the engine has %d", len(rows), len(gate.CheckRules))
	}
	for i, r := range gate.CheckRules {
		if rows[i][1] != r.Name || rows[i][2] != r.Severity.String() {
			t.Errorf("row %d: %s %s, want %s %s", i, rows[i][1], rows[i][2], r.Name, r.Severity)
		}
	}
}
