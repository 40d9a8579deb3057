package merge

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

var hunkHeaderRe = regexp.MustCompile(`(?m)^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@`)

// gitDiffScript runs `git diff --no-index -U0` with git's plain Myers
// algorithm in dir, with env isolated from any user or system configuration
// (internal/testenv), and returns its hunks in diffLines' form.
func gitDiffScript(t *testing.T, dir string, env []string, a, b string) []change {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte(a), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b"), []byte(b), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "diff", "--no-index", "-U0", "--no-indent-heuristic",
		"--diff-algorithm=myers", "--no-color", "--no-ext-diff", "a", "b")
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	// Exit 1 means "differences", 0 none; anything else is a git that did
	// not answer (under Wine, a bridge that failed to start): the referee
	// is then unknown, and an empty script must not pass for its answer.
	out, err := cmd.Output()
	var ee *exec.ExitError
	differs := errors.As(err, &ee) && ee.ExitCode() == 1
	if err != nil && !differs {
		t.Fatalf("git diff --no-index: %v\n%s", err, stderr.Bytes())
	}
	var script []change
	for _, m := range hunkHeaderRe.FindAllStringSubmatch(string(out), -1) {
		num := func(s string, def int) int {
			if s == "" {
				return def
			}
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("bad hunk header %q", m[0])
			}
			return n
		}
		c := change{i1: num(m[1], 0), chg1: num(m[2], 1), i2: num(m[3], 0), chg2: num(m[4], 1)}
		// -U0 headers name the line before an empty range.
		if c.chg1 > 0 {
			c.i1--
		}
		if c.chg2 > 0 {
			c.i2--
		}
		script = append(script, c)
	}
	if differs != (len(script) > 0) {
		t.Fatalf("git diff --no-index exited %v but printed %d hunks:\n%s", err, len(script), out)
	}
	return script
}

func TestDiffLinesMatchesGitMyers(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := rand.New(rand.NewPCG(42, 4242))
	dir, env := t.TempDir(), testenv.TempGit(t).Inherit()
	n := 400
	if testing.Short() {
		n = 100
	}
	for i := range n {
		base := genBase(r)
		for range r.IntN(12) {
			base = append(base, genLine(r))
		}
		a := render(r, base, true)
		b := render(r, mutate(r, mutate(r, base)), false)
		want := gitDiffScript(t, dir, env, a, b)
		got := diffLines(splitLines(a), splitLines(b))
		if fmt.Sprint(got) != fmt.Sprint(want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("case %d: a=%q b=%q\n got %v\nwant %v", i, a, b, got, want)
		}
	}
}
