// Command git-echoes is the EchoesVault Protocol 1.0.0 native writer, the ECC
// memory vault and their Git integration, run as `git echoes <command>`.
package main

import (
	"io"
	"os"
)

// command is one top-level subcommand. It receives the arguments after its
// name and returns the process exit code.
type command func(args []string, stdin io.Reader, stdout, stderr io.Writer) int

// extraCommands holds the command groups that register themselves from
// their own files (memory, hooks, check, mcp, ...), so that each group
// lives in one file and main stays a dispatcher.
var extraCommands = map[string]command{}

func registerCommand(name string, fn command) { extraCommands[name] = fn }

func main() {
	os.Exit(runMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
