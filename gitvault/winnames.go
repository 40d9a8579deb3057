package gitvault

import (
	"runtime"

	"github.com/git-echoes/git-echoes/internal/pyjson"
	"github.com/git-echoes/git-echoes/internal/winname"
)

// refuseWindowsNames is true where the engine must not create a file whose
// name Windows cannot hold (issue 8). Elsewhere the protocol's own name
// rules (echoes-conformance §8.1) apply unchanged, and `check` reports such
// names under ruleWindowsName instead. Tests may set it to exercise the
// Windows refusal on any OS.
var refuseWindowsNames = runtime.GOOS == "windows"

// portablePageName refuses, on Windows, a normalized page file name that
// cannot exist there: a reserved device name (CON.md, aux.md), a reserved
// or control character, which Windows would otherwise take for something
// else (CON.md opens the console, a:b.md names the stream b.md of the file
// a), before anything is read or written. Writers (upsert, end) and page
// readers (hash, the MCP read) check it. Page names come from the user (upsert and end payloads); daily
// entry names are built from [a-z0-9._-] and a fixed prefix, and memory ids
// match mem_[a-z0-9][a-z0-9_-]*, so neither can be such a name (their tests
// prove it).
func portablePageName(name string) error {
	if !refuseWindowsNames {
		return nil
	}
	if r := winname.Reason(name); r != "" {
		return Errorf("Page filename cannot exist on Windows: %s (%s).", pyjson.ReprString(name), r)
	}
	return nil
}
