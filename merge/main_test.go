package merge

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMain doubles as a stand-in git-echoes: copied onto PATH as git-echoes
// (git-echoes.exe on Windows), it appends its arguments to $FAKE_LOG and
// exits with $FAKE_EXIT, so the installed hooks can be run by real git
// without building the real binary.
func TestMain(m *testing.M) {
	if name := strings.ToLower(filepath.Base(os.Args[0])); name == "git-echoes" || name == "git-echoes.exe" {
		if f, err := os.OpenFile(os.Getenv("FAKE_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "ran: %s\n", strings.Join(os.Args[1:], " "))
			f.Close()
		}
		code, _ := strconv.Atoi(os.Getenv("FAKE_EXIT"))
		os.Exit(code)
	}
	os.Exit(m.Run())
}
