package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/fsx"
)

// The change-notification stress test (issue 19): another process writes
// pages and memories while `git echoes mcp` (the real binary, watching by
// default) answers, and every answer must be consistent with the files as
// they stood when the call began.
//
// Consistency, precisely. The writer makes numbered steps one at a time
// and, after each step's write has returned, appends the step to a log.
// Before a call the test reads the log: A is the last step logged (every
// step up to A was complete before the call was sent). After the answer it
// reads the log again: B. Steps are taken one after another, so while the
// call ran the files went through the states of steps A..B+1 (B+1 may have
// been written and not logged yet). An answer is consistent when it is the
// answer of one such state, source by source:
//
//   - the page: its token is the number of the last page step, written
//     either by an atomic replace (a whole new file) or by an in-place
//     append of one line through an open file; echoes_search for the
//     token prefix must report max token T with A_page <= T <= B+1
//     (a token line still being appended is incomplete, has no ';', and
//     is not counted: the state before that step);
//   - memories: each memory step creates one memory (create-only, the
//     memory writer); memory_search and echoes_find must count N memories
//     with A_mem <= N <= B_mem+1;
//   - memory_read of the last memory logged before the call must find it.
//
// The writer pauses now and then, so that many calls find nothing changed
// and are answered from memory: the test checks that both paths ran.

const watchWriterEnv = "GIT_ECHOES_TEST_WATCH_WRITER"

func init() {
	if spec := os.Getenv(watchWriterEnv); spec != "" {
		os.Exit(watchWriter(spec))
	}
}

// watchWriter is the other process: spec is "repo|home|log|maxMemories".
func watchWriter(spec string) int {
	parts := strings.Split(spec, "|")
	repo, home, logPath := parts[0], parts[1], parts[2]
	maxMem, _ := strconv.Atoi(parts[3])
	roots, err := memory.ResolveRoots(memory.RootOptions{Cwd: repo, Home: home, Getenv: func(string) string { return "" }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	page := filepath.Join(repo, "EchoesVault", "pages", "stress.md")
	stop := make(chan struct{})
	go func() { // the test closes our stdin to stop us
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		close(stop)
	}()
	mems := 0
	for k := 1; ; k++ {
		select {
		case <-stop:
			return 0
		default:
		}
		var line string
		switch {
		case k%5 == 4 && mems < maxMem:
			res, err := memory.Save(roots, memory.SaveInput{Title: fmt.Sprintf("mgenmark %06d", k), Body: "stress body " + strconv.Itoa(k),
				Kind: "note", Scope: "project", SourceHarness: "claude", TargetHarnesses: []string{"all"}, Tags: []string{}, Links: []string{}})
			if err != nil {
				fmt.Fprintln(os.Stderr, "memory save:", err)
				return 1
			}
			mems++
			line = fmt.Sprintf("m %d %d %s\n", k, mems, res.Memory.ID)
		case k%2 == 0:
			text := fmt.Sprintf("---\ntype: note\nstack: [go]\nstatus: active\nsummary: Stress page.\n---\n\n# Stress\n\npgen-%06d;\n", k)
			if err := fsx.WriteFileAtomic(page, []byte(text)); err != nil {
				fmt.Fprintln(os.Stderr, "replace:", err)
				return 1
			}
			line = fmt.Sprintf("p %d\n", k)
		default:
			f, err := os.OpenFile(page, os.O_WRONLY|os.O_APPEND, 0)
			if err == nil {
				_, err = fmt.Fprintf(f, "pgen-%06d;\n", k) // in place: one write through an open file
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "append:", err)
				return 1
			}
			line = fmt.Sprintf("p %d\n", k)
		}
		if _, err := logf.WriteString(line); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if k%20 == 0 {
			time.Sleep(300 * time.Millisecond) // quiet: answers come from memory
		} else {
			time.Sleep(time.Duration(k%3) * time.Millisecond)
		}
	}
}

// writerLog is what the log said at one moment.
type writerLog struct {
	last       int // the last step of either kind
	page, mems int // the last page step, the memories made
	lastMem    string
}

func readWriterLog(t *testing.T, path string) writerLog {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var l writerLog
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "p":
			l.page, _ = strconv.Atoi(f[1])
			l.last = l.page
		case len(f) == 4 && f[0] == "m":
			l.last, _ = strconv.Atoi(f[1])
			l.mems, _ = strconv.Atoi(f[2])
			l.lastMem = f[3]
		}
	}
	return l
}

var (
	pageToken = regexp.MustCompile(`pgen-(\d{6});`)
	memTitle  = regexp.MustCompile(`mgenmark (\d{6})`)
)

func maxPageToken(text string) int {
	best := 0
	for _, m := range pageToken.FindAllStringSubmatch(text, -1) {
		if n, _ := strconv.Atoi(m[1]); n > best {
			best = n
		}
	}
	return best
}

func countMemories(text string) int {
	seen := map[string]bool{}
	for _, m := range memTitle.FindAllStringSubmatch(text, -1) {
		seen[m[1]] = true
	}
	return len(seen)
}

// startWatchedMCP starts the real binary with --verbose, its stderr kept.
func startWatchedMCP(t *testing.T, e *mcpEnv, stderr *syncBuffer, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(mcpBinary(t), append([]string{"mcp", "--verbose"}, args...)...)
	cmd.Dir, cmd.Env, cmd.Stderr = e.repo, append(e.vars, "GOTRACEBACK=all"), stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "git-echoes-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	// Runs before the Close above (cleanups run last first): a server
	// that stopped answering is asked for its goroutines while it still
	// runs, so that a hang seen once in CI says where it hung.
	t.Cleanup(func() {
		if t.Failed() {
			dumpServer(t, cmd, stderr)
		}
	})
	return s
}

// dumpServer asks a server that is still running for its goroutines
// (SIGQUIT: the Go runtime prints every goroutine's stack to stderr and
// exits) and logs the tail of its stderr. Windows has no SIGQUIT: the log
// is given as it is.
func dumpServer(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer) {
	t.Helper()
	if cmd.Process != nil && cmd.ProcessState == nil && runtime.GOOS != "windows" {
		// Whether it spins or sleeps: its CPU time over one second, and
		// each thread's state (Linux).
		t.Logf("the server's threads: %s", procThreads(cmd.Process.Pid))
		time.Sleep(time.Second)
		t.Logf("a second later: %s", procThreads(cmd.Process.Pid))
		if err := cmd.Process.Signal(syscall.SIGQUIT); err == nil {
			// The dump is written at once; wait until it stops growing.
			last, still := -1, 0
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && still < 5; time.Sleep(100 * time.Millisecond) {
				n := len(stderr.String())
				if n == last && strings.Contains(stderr.String(), "goroutine ") {
					still++
				} else {
					still = 0
				}
				last = n
			}
		}
	}
	log := stderr.String()
	if len(log) > 64<<10 {
		log = "...\n" + log[len(log)-64<<10:]
	}
	t.Logf("the server's stderr:\n%s", log)
}

// procThreads reads each thread's state and CPU ticks from /proc ("" where
// there is no /proc).
func procThreads(pid int) string {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var out []string
	for _, task := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, task.Name(), "stat"))
		if err != nil {
			continue
		}
		// After the command's closing parenthesis: state is field 3,
		// utime and stime fields 14 and 15.
		rest := string(data)
		if i := strings.LastIndexByte(rest, ')'); i >= 0 {
			rest = rest[i+1:]
		}
		f := strings.Fields(rest)
		if len(f) > 12 {
			out = append(out, fmt.Sprintf("%s:%s/%s+%s", task.Name(), f[0], f[11], f[12]))
		}
	}
	return strings.Join(out, " ")
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestMCPWatchStress(t *testing.T) {
	// 200 rounds in the package's run (it shares go test's 10-minute
	// bound with every other test here), 1,000 in .ci/run's own step
	// (GIT_ECHOES_STRESS_ROUNDS=1000), 100 with -short.
	rounds := 200
	if n, err := strconv.Atoi(os.Getenv("GIT_ECHOES_STRESS_ROUNDS")); err == nil && n > 0 {
		rounds = n
	} else if testing.Short() {
		rounds = 100
	}
	e := newMCPEnv(t)
	page := filepath.Join(e.repo, "EchoesVault", "pages", "stress.md")
	if err := os.WriteFile(page, []byte("---\ntype: note\nstack: [go]\nstatus: active\nsummary: Stress page.\n---\n\n# Stress\n\npgen-000000;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The writer is stopped after the server was asked for its goroutines
	// on a failure (cleanups run last first), so that a server held up
	// while the writer writes is seen as it was.
	var stopWriter func()
	t.Cleanup(func() {
		if stopWriter != nil {
			stopWriter()
		}
	})
	var stderr syncBuffer
	s := startWatchedMCP(t, e, &stderr)
	ok(t, s, "echoes_search", map[string]any{"query": "pgen-"}) // started and watching

	logPath := filepath.Join(t.TempDir(), "writer.log")
	const maxMem = 60
	w := exec.Command(os.Args[0], "-test.run", "^$")
	w.Env = append(os.Environ(), watchWriterEnv+"="+strings.Join([]string{e.repo, e.home, logPath, strconv.Itoa(maxMem)}, "|"))
	stdin, err := w.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var werr bytes.Buffer
	w.Stderr = &werr
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stopWriter = func() {
		if !stopped {
			stopped = true
			stdin.Close()
			if err := w.Wait(); err != nil {
				t.Errorf("writer: %v\n%s", err, werr.String())
			}
		}
	}

	probe := filepath.Join(e.repo, "EchoesVault", "pages", "probe.md")
	for round := range rounds {
		// This process writes, then calls at once: the answer must show
		// the write although the server's events for it may not have been
		// read yet (the barrier's case).
		switch round % 6 {
		case 0:
			text := fmt.Sprintf("---\ntype: note\nstack: [go]\nstatus: active\nsummary: Probe.\n---\n\nprobe-%06d;\n", round)
			if err := fsx.WriteFileAtomic(probe, []byte(text)); err != nil {
				t.Fatal(err)
			}
		case 3:
			f, err := os.OpenFile(probe, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(f, "probe-%06d;\n", round)
			f.Close()
		}
		if _, text, _ := logged(t, s, logPath, "echoes_search", map[string]any{"query": "probe-"}); !strings.Contains(text, fmt.Sprintf("probe-%06d;", round-round%3)) {
			t.Fatalf("round %d: echoes_search right after this process's write did not see it:\n%s", round, text)
		}

		a, text, b := logged(t, s, logPath, "echoes_search", map[string]any{"query": "pgen-", "limit": 500})
		if got := maxPageToken(text); got < a.page || got > b.last+1 {
			t.Fatalf("round %d: echoes_search saw page step %d, the writer had completed %d before the call and %d after it\n%s", round, got, a.page, b.page, text)
		}

		a, text, b = logged(t, s, logPath, "memory_search", map[string]any{"query": "mgenmark", "limit": 100})
		if got := countMemories(text); got < a.mems || got > b.mems+1 {
			t.Fatalf("round %d: memory_search counted %d memories, the writer had made %d before the call and %d after it", round, got, a.mems, b.mems)
		}

		a = readWriterLog(t, logPath)
		if a.lastMem != "" {
			text = ok(t, s, "memory_read", map[string]any{"id": a.lastMem})
			if !strings.Contains(text, a.lastMem) {
				t.Fatalf("round %d: memory_read %s: %s", round, a.lastMem, text)
			}
		}

		if round%5 == 0 {
			a, text, b = logged(t, s, logPath, "echoes_find", map[string]any{"query": "mgenmark", "limit": 100, "format": "json"})
			if got := countMemories(text); got < a.mems || got > b.mems+1 {
				t.Fatalf("round %d: echoes_find counted %d memories, the writer had made %d before the call and %d after it", round, got, a.mems, b.mems)
			}
		}
	}
	stopWriter()
	// Quiet now: the answers are the final files', from memory or not.
	final := readWriterLog(t, logPath)
	for range 3 {
		if got := maxPageToken(ok(t, s, "echoes_search", map[string]any{"query": "pgen-", "limit": 500})); got != final.page {
			t.Fatalf("after the writer stopped: page step %d, want %d", got, final.page)
		}
		if got := countMemories(ok(t, s, "memory_search", map[string]any{"query": "mgenmark", "limit": 100})); got != final.mems {
			t.Fatalf("after the writer stopped: %d memories, want %d", got, final.mems)
		}
	}
	s.Close()
	checkMemoUsed(t, &stderr)
}

// logged reads the writer's log, calls the tool, and reads the log again.
// On Windows a read of a page the writer holds open for its in-place edit
// fails with a sharing violation (the engine's reads do not share write
// access): that is no answer, and the call is made again, with the log
// read again before it; everything else must succeed.
func logged(t *testing.T, s *mcp.ClientSession, logPath, name string, args map[string]any) (a writerLog, text string, b writerLog) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		a = readWriterLog(t, logPath)
		res, err := call(t, s, name, args)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text = resultText(res)
		if res.IsError && runtime.GOOS == "windows" && strings.Contains(text, "Sharing violation") && attempt < 100 {
			continue
		}
		if res.IsError {
			t.Fatalf("%s: tool error %s", name, text)
		}
		return a, text, readWriterLog(t, logPath)
	}
}

// checkMemoUsed reads the server's --verbose summary: with change
// notification some answers came from memory and some were computed;
// without it (Windows: no ordered barrier) every call revalidated and the
// server said why.
func checkMemoUsed(t *testing.T, stderr *syncBuffer) {
	t.Helper()
	var m []string
	log := ""
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		log = stderr.String()
		if m = regexp.MustCompile(`answers from memory: (\d+), computed: (\d+), computed without proof of freshness: (\d+)`).FindStringSubmatch(log); m != nil {
			break
		}
	}
	if m == nil {
		t.Fatalf("no memo summary in the server's --verbose log:\n%s", log)
	}
	t.Logf("server: %s", m[0])
	hits, _ := strconv.Atoi(m[1])
	misses, _ := strconv.Atoi(m[2])
	unproven, _ := strconv.Atoi(m[3])
	if runtime.GOOS != "windows" {
		if hits == 0 || misses == 0 {
			t.Fatalf("answers from memory %d, computed %d: both paths must have run\n%s", hits, misses, log)
		}
	} else if hits != 0 || unproven == 0 || !strings.Contains(log, "revalidate") {
		t.Fatalf("without a barrier: %d from memory, %d unproven\n%s", hits, unproven, log)
	}
}
