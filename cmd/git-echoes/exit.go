package main

import (
	"errors"

	"github.com/git-echoes/git-echoes/hooks"
)

// Exit statuses, named for what they mean to the command that returns
// them. Several commands give 1 and 2 different meanings (git's merge
// driver contract, the ECC memory reference, a gate's "findings" versus
// "could not look"), so each meaning has its own name; the values are the
// documented ones (echoes-conformance §4.4 for the runtime commands, each
// command group's usage text for the rest) and must not change.
const (
	exitOK = 0 // success, every command

	// Runtime commands (echoes-conformance §4.4) and the usage errors of
	// every command group.
	exitUsage = 2 // usage error: usage text on stderr
	exitError = 2 // expected error: the engine's message, the repository or a file could not be used

	// check: findings block the commit; exitError means the gate failed closed.
	exitFindings = 1

	// hooks install: an existing hook that is not ours was left alone.
	exitRefused = 1

	// merge-driver: conflict markers written into OURS, as git requires of
	// a merge driver that could not merge cleanly.
	exitConflict = 1

	// mcp: the session ended with an error other than a normal shutdown.
	exitServeError = 1

	// memory: every error, as the reference's `ecc memory` exits.
	exitMemoryError = 1

	// memoryDoctorIssuesExit is doctor's status when the vault has problems,
	// distinct from 1 (the command itself failed).
	memoryDoctorIssuesExit = 3
)

// exitStatus maps the error that ends a command to its exit status: a
// usage error, a refused foreign hook, or any other (expected) error.
func exitStatus(err error) int {
	var ue *usageError
	var fe *hooks.ForeignHookError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &fe):
		return exitRefused
	}
	return exitError
}
