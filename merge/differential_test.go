package merge

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// gitMergeFile runs `git merge-file -p` as the referee in dir, with env
// isolated from any user or system configuration (internal/testenv).
func gitMergeFile(t *testing.T, dir string, env []string, base, ours, theirs string, diff3 bool) ([]byte, bool) {
	t.Helper()
	paths := map[string]string{"ours": ours, "base": base, "theirs": theirs}
	for name, content := range paths {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatalf("write %s: %v", name, err)
		}
	}
	args := []string{"merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs"}
	if diff3 {
		args = append(args, "--diff3")
	}
	args = append(args, "ours", "base", "theirs")
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.Bytes(), true
	case errors.As(err, &exit) && exit.ExitCode() > 0 && exit.ExitCode() < 128:
		return stdout.Bytes(), false
	}
	t.Fatalf("git merge-file: %v: %s", err, stderr.String())
	return nil, false
}

// genLines makes small texts over a tiny alphabet so that lines repeat a
// lot, which is where diff alignment choices matter.
func genBase(r *rand.Rand) []string {
	n := r.IntN(9)
	lines := make([]string, n)
	for i := range lines {
		lines[i] = genLine(r)
	}
	return lines
}

func genLine(r *rand.Rand) string {
	alphabet := []string{"a", "b", "c", "d", "e", "f", "", "}", "x y"}
	return alphabet[r.IntN(len(alphabet))]
}

func mutate(r *rand.Rand, base []string) []string {
	out := append([]string(nil), base...)
	for range r.IntN(4) {
		switch op := r.IntN(3); {
		case op == 0 || len(out) == 0: // insert
			i := r.IntN(len(out) + 1)
			out = append(out[:i], append([]string{genLine(r)}, out[i:]...)...)
		case op == 1: // delete
			i := r.IntN(len(out))
			out = append(out[:i], out[i+1:]...)
		default: // replace
			out[r.IntN(len(out))] = genLine(r)
		}
	}
	return out
}

func render(r *rand.Rand, lines []string, finalNL bool) string {
	if len(lines) == 0 {
		return ""
	}
	s := strings.Join(lines, "\n")
	if finalNL || r.IntN(5) != 0 {
		s += "\n"
	}
	return s
}

func TestDifferentialAgainstGitMergeFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	cases := 600
	if testing.Short() {
		cases = 150
	}
	r := rand.New(rand.NewPCG(20260904, 7))
	dir, env := t.TempDir(), testenv.TempGit(t).Inherit()
	var cleanSame, conflictSame, bytesSame int
	for i := range cases {
		baseLines := genBase(r)
		base := render(r, baseLines, true)
		ours := render(r, mutate(r, baseLines), false)
		theirs := render(r, mutate(r, baseLines), false)
		diff3 := i%4 == 3
		want, gitClean := gitMergeFile(t, dir, env, base, ours, theirs, diff3)
		got, clean, err := MergePage([]byte(base), []byte(ours), []byte(theirs),
			Labels{Ours: "ours", Base: "base", Theirs: "theirs", Diff3: diff3})
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		desc := fmt.Sprintf("case %d (diff3=%v)\nbase=%q\nours=%q\ntheirs=%q\ngit=%q (clean=%v)\nours=%q (clean=%v)",
			i, diff3, base, ours, theirs, want, gitClean, got, clean)
		switch {
		case gitClean && clean:
			if !bytes.Equal(got, want) {
				t.Errorf("clean results differ: %s", desc)
			}
			cleanSame++
		case gitClean && !clean:
			// Allowed by the contract, but this port reproduces git.
			t.Errorf("we conflict where git is clean: %s", desc)
		case !gitClean && clean:
			t.Errorf("git conflicts but we merged cleanly: %s", desc)
		default:
			conflictSame++
			if bytes.Equal(got, want) {
				bytesSame++
			} else {
				t.Errorf("conflict output differs: %s", desc)
			}
		}
	}
	t.Logf("%d cases: %d clean alike, %d conflicts alike (%d byte-identical)", cases, cleanSame, conflictSame, bytesSame)
	if cleanSame == 0 || conflictSame == 0 {
		t.Fatalf("generator does not exercise both outcomes")
	}
}
