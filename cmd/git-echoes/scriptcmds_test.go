package main

import "github.com/rogpeppe/go-internal/testscript"

// scriptCmds holds the custom testscript commands. Files that need their own
// commands add to it from an init function, so each test file stays
// self-contained.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){}

func scriptCommands() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return scriptCmds
}
