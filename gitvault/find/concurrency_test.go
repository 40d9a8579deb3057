package find

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// TestMain lets the test binary act as a second find process
// (TestConcurrentProcesses).
func TestMain(m *testing.M) {
	if ws := os.Getenv("FIND_TEST_CHILD_WORKSPACE"); ws != "" {
		os.Exit(childFinds(ws))
	}
	os.Exit(testenv.Run(m)) // removes the benchmarks' shared vault
}

// childFinds runs queries (and a rebuild now and then) against ws; every
// answer must be a consistent state: the wombat pages found are exactly
// a set some sequence of the parent's edits can produce (each page has
// the word or not, never a half-indexed page).
func childFinds(ws string) int {
	n, _ := strconv.Atoi(os.Getenv("FIND_TEST_CHILD_QUERIES"))
	eng, err := gitvault.Open(gitvault.Options{Workspace: ws})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := 0; i < n; i++ {
		res, err := Find(eng.WS, Options{Query: "wombat", Limit: 100, Rebuild: i%7 == 6})
		if err != nil {
			fmt.Fprintln(os.Stderr, "find:", err)
			return 1
		}
		for _, h := range res.Hits {
			if !strings.Contains(h.File, "page-") || len(h.Lines) == 0 {
				fmt.Fprintln(os.Stderr, "inconsistent hit:", h.File, h.Lines)
				return 1
			}
		}
	}
	return 0
}

// TestConcurrentProcesses: two processes query (building, updating and
// rebuilding the index) while a third edits the pages. No process fails,
// and afterwards the index agrees exactly with a fresh rebuild.
func TestConcurrentProcesses(t *testing.T) {
	eng := newVault(t, true)
	const pages = 40
	for i := 0; i < pages; i++ {
		writePage(t, eng, fmt.Sprintf("page-%02d", i), pageText("note", "go", "active", "p", "nothing here"))
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]string, 2)
	for c := 0; c < 2; c++ {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "FIND_TEST_CHILD_WORKSPACE="+eng.WS.Root, "FIND_TEST_CHILD_QUERIES=40")
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[c] = fmt.Sprintf("%v: %s", err, out)
			}
		}(c)
	}
	// Edit while the children run: each page alternates between having
	// the word (with a line to show) and not.
	for round := 0; round < 60; round++ {
		i := round % pages
		body := "nothing here"
		if round%2 == 0 {
			body = "a wombat lives here"
		}
		writePage(t, eng, fmt.Sprintf("page-%02d", i), pageText("note", "go", "active", "p", body))
		time.Sleep(5 * time.Millisecond) // pacing, so the edits overlap the queries
	}
	wg.Wait()
	for c, e := range errs {
		if e != "" {
			t.Errorf("process %d: %s", c, e)
		}
	}
	got := hitNames(mustFind(t, eng, Options{Query: "wombat", Limit: 100}))
	if _, err := Rebuild(eng.WS, nil); err != nil {
		t.Fatal(err)
	}
	want := hitNames(mustFind(t, eng, Options{Query: "wombat", Limit: 100}))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) || len(want) == 0 {
		t.Errorf("after the race the index says %v, a rebuild %v", got, want)
	}
	var direct []string
	for i := 0; i < pages; i++ {
		b, _ := os.ReadFile(filepath.Join(eng.WS.Pages, fmt.Sprintf("page-%02d.md", i)))
		if strings.Contains(string(b), "wombat") {
			direct = append(direct, fmt.Sprintf("EchoesVault/pages/page-%02d.md", i))
		}
	}
	if !slices.Equal(want, direct) {
		t.Errorf("rebuild %v, files %v", want, direct)
	}
}
