package main

import (
	"io"
)

// run is the whole program: it dispatches registered command groups by their
// first argument and hands everything else to the EchoesVault runtime CLI.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if fn, ok := extraCommands[args[0]]; ok {
			return fn(args[1:], stdin, stdout, stderr)
		}
	}
	return runEchoes(args, stdin, stdout, stderr)
}

func runEchoes(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	io.WriteString(stderr, "not implemented yet\n")
	return 2
}
