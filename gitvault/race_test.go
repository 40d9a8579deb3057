package gitvault

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

const (
	raceProcs   = 4
	raceAppends = 25
	raceUpserts = 10
	raceShared  = 5
	raceEnvWS   = "GITVAULT_RACE_WORKSPACE"
	raceEnvID   = "GITVAULT_RACE_ID"
)

func racePage(summary, body string) string {
	return "---\ntype: note\nstack: []\nstatus: active\nsummary: " + summary + "\n---\n\n" + body + "\n"
}

func racePayload(fields ...string) Payload {
	o := pyjson.NewObj()
	for i := 0; i < len(fields); i += 2 {
		o.Set(fields[i], pyjson.Str(fields[i+1]))
	}
	data := []byte(pyjson.Compact(pyjson.ObjectValue(o)))
	return func() ([]byte, error) { return data, nil }
}

// TestRaceHelperProcess is the body of one writer process; it does nothing
// unless started by TestMultiProcessWriters.
func TestRaceHelperProcess(t *testing.T) {
	ws := os.Getenv(raceEnvWS)
	if ws == "" {
		return
	}
	id, err := strconv.Atoi(os.Getenv(raceEnvID))
	if err != nil {
		t.Fatal(err)
	}
	// The test is about serialisation, not the 8 s wait: on a loaded machine
	// a writer may queue behind the others for longer than that, which must
	// not fail it (no test depends on wall-clock time).
	LockOptions.Wait = 10 * time.Minute
	e, err := Open(Options{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	retryable := func(err error) bool {
		msg := err.Error()
		return strings.HasPrefix(msg, "Concurrent change detected for shared.md") ||
			strings.HasPrefix(msg, "Updating shared.md requires expectedSha256") ||
			msg == lockBusyMessage
	}
	shared := 0
	for step := 0; step < raceAppends; step++ {
		if _, err := e.Append(racePayload("entry", fmt.Sprintf("process %d step %d", id, step), "agent", fmt.Sprintf("proc-%d", id))); err != nil {
			t.Fatalf("append: %v", err)
		}
		if step < raceUpserts {
			name := fmt.Sprintf("p%d-%02d", id, step)
			if _, err := e.Upsert(racePayload("filename", name, "content", racePage("Page "+name+".", "body"))); err != nil {
				t.Fatalf("upsert %s: %v", name, err)
			}
		}
		if step%5 == 0 && shared < raceShared {
			// The hash protocol: read the hash, submit it, retry on a
			// concurrent change.
			for attempt := 0; ; attempt++ {
				fields := []string{"filename", "shared", "content", racePage("Shared page.", fmt.Sprintf("last writer %d/%d", id, shared))}
				if h, err := e.Hash("shared"); err == nil {
					sha, _ := h.Obj.Get("sha256")
					fields = append(fields, "expectedSha256", sha.S)
				}
				_, err := e.Upsert(racePayload(fields...))
				if err == nil {
					break
				}
				if !retryable(err) || attempt > 1000 {
					t.Fatalf("shared upsert: %v", err)
				}
			}
			shared++
		}
	}
}

// TestMultiProcessWriters runs four processes writing one vault at once
// through the shared lock (protocol §11): 25 appends and 10 distinct page
// upserts each, plus hash-protocol updates of one shared page.
func TestMultiProcessWriters(t *testing.T) {
	if os.Getenv(raceEnvWS) != "" {
		return
	}
	root := t.TempDir()
	e, err := Open(Options{Workspace: root})
	if err != nil {
		t.Fatal(err)
	}
	if err := testInit(e); err != nil {
		t.Fatal(err)
	}
	cmds := make([]*exec.Cmd, raceProcs)
	outs := make([]*strings.Builder, raceProcs)
	for i := range cmds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRaceHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), raceEnvWS+"="+root, raceEnvID+"="+strconv.Itoa(i))
		outs[i] = &strings.Builder{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i]
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds[i] = cmd
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v\n%s", i, err, outs[i])
		}
	}
	if t.Failed() {
		return
	}

	// Exactly 100 unique daily files.
	daily := 0
	WalkDaily(e.WS.Daily, func(string) bool { daily++; return true })
	if want := raceProcs * raceAppends; daily != want {
		t.Errorf("%d daily files, want %d", daily, want)
	}
	// Every page present and valid.
	names, err := listPageNames(e.WS.Pages)
	if err != nil {
		t.Fatal(err)
	}
	if want := raceProcs*raceUpserts + 1; len(names) != want {
		t.Errorf("%d pages, want %d", len(names), want)
	}
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(e.WS.Pages, n))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := validatePage(string(data), true); err != nil {
			t.Errorf("page %s invalid: %v", n, err)
		}
	}
	shared, _ := os.ReadFile(filepath.Join(e.WS.Pages, "shared.md"))
	if !strings.Contains(string(shared), fmt.Sprintf("/%d\n", raceShared-1)) {
		t.Errorf("shared page is not a final update: %q", shared)
	}
	// rebuild-index yields the deterministic index: the one the concurrent
	// writers left behind, and the one computed from the known summaries.
	before, _ := os.ReadFile(e.WS.Index)
	res, err := e.RebuildIndex()
	if err != nil {
		t.Fatal(err)
	}
	if rebuilt, _ := res.Obj.Get("rebuilt"); rebuilt.B {
		t.Error("the index left by the writers was not the deterministic one")
	}
	var want strings.Builder
	want.WriteString(indexHeader + "\n")
	for i := 0; i < raceProcs; i++ {
		for j := 0; j < raceUpserts; j++ {
			fmt.Fprintf(&want, "- [[p%d-%02d]]: Page p%d-%02d.\n", i, j, i, j)
		}
	}
	want.WriteString("- [[shared]]: Shared page.\n")
	after, _ := os.ReadFile(e.WS.Index)
	if string(after) != want.String() || string(before) != want.String() {
		t.Errorf("index\n%s\nwant\n%s", after, want.String())
	}
	// No temporary files, no lock file.
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(d.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", p)
		}
		return nil
	})
	if _, err := os.Lstat(e.WS.Lock); err == nil {
		t.Error("lock file left behind")
	}
}
