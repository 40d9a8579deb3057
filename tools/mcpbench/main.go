// Command mcpbench measures `git echoes mcp` as a client uses it: it starts
// the real binary, speaks line-delimited JSON-RPC over its standard input
// and output, and reports the p50 and p99 latency of echoes_search,
// echoes_find, memory_search and memory_read calls, cold (a new server per call: the
// first call of a process, nothing cached in memory) and warm (repeated
// calls to one server; with -vs a yardstick binary's server answers the
// same calls, alternating with it). It is
// a benchmark, not a test (scripts/bench.sh runs it):
//
//	go run ./tools/mcpbench -bin ./git-echoes -vs ./git-echoes-main -dir /tmp/mcp5k -pages 5000 -memories 4990 -calls 200
//
// The workspace is generated on first use (vaultgen pages outside Git, and
// project-scope memories written as the memory vault stores them).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/vaultgen"
)

func main() {
	bin := flag.String("bin", "git-echoes", "the git-echoes binary")
	vs := flag.String("vs", "", "a yardstick binary (e.g. main's build), measured in the same run: warm calls alternate between the two servers")
	dir := flag.String("dir", "", "workspace (generated when it holds no vault)")
	pages := flag.Int("pages", 5000, "pages to generate")
	memories := flag.Int("memories", 4990, "project memories to generate")
	calls := flag.Int("calls", 200, "calls per tool and mode")
	cold := flag.Bool("cold", true, "measure cold calls too (a new server per call)")
	flag.Parse()
	if *dir == "" {
		fail(errors.New("-dir is required"))
	}
	ids, err := prepare(*dir, *pages, *memories)
	if err != nil {
		fail(err)
	}
	tools := []struct {
		label string
		call  func(i int) (string, map[string]any)
	}{
		{"echoes_search (no match: full scan)", func(int) (string, map[string]any) {
			return "echoes_search", map[string]any{"query": "no-such-phrase-anywhere"}
		}},
		{"echoes_find", func(int) (string, map[string]any) {
			return "echoes_find", map[string]any{"query": "retry budget boundary"}
		}},
		{"memory_search", func(int) (string, map[string]any) {
			return "memory_search", map[string]any{"query": "retry budget boundary"}
		}},
		{"memory_read", func(i int) (string, map[string]any) {
			return "memory_read", map[string]any{"id": ids[(i*7919)%len(ids)]}
		}},
	}
	bins := []string{*bin}
	if *vs != "" {
		bins = append(bins, *vs)
	}
	name := func(b string) string {
		if b == *vs {
			return " [yardstick " + b + "]"
		}
		return " [" + b + "]"
	}
	fmt.Printf("== git echoes mcp over stdio: %d pages, %d memories, %d calls each\n", *pages, *memories, *calls)
	for _, t := range tools {
		if *cold {
			for _, b := range bins {
				ds := make([]time.Duration, 0, *calls)
				for i := range *calls {
					s, err := start(b, *dir)
					if err != nil {
						fail(err)
					}
					tool, args := t.call(i)
					d, err := s.call(tool, args)
					if err != nil {
						fail(fmt.Errorf("%s: %w", tool, err))
					}
					ds = append(ds, d)
					s.close()
				}
				report(t.label+", cold"+name(b), ds)
			}
		}
		servers := make([]*server, len(bins))
		for k, b := range bins {
			s, err := start(b, *dir)
			if err != nil {
				fail(err)
			}
			tool, args := t.call(0)
			if _, err := s.call(tool, args); err != nil { // the cold call that fills the caches
				fail(err)
			}
			servers[k] = s
		}
		warm := make([][]time.Duration, len(bins))
		cpu0 := make([]time.Duration, len(bins))
		for k, s := range servers {
			cpu0[k] = s.cpu()
		}
		for i := range *calls {
			for k, s := range servers { // alternating: both see the same machine load
				tool, args := t.call(i)
				d, err := s.call(tool, args)
				if err != nil {
					fail(fmt.Errorf("%s: %w", tool, err))
				}
				warm[k] = append(warm[k], d)
			}
		}
		for k, s := range servers {
			cpu := (s.cpu() - cpu0[k]) / time.Duration(*calls)
			s.close()
			report(t.label+", warm"+name(bins[k]), warm[k])
			if cpu > 0 {
				fmt.Printf("%8.1f ms CPU per warm call (server user+system time)\n", float64(cpu.Microseconds())/1000)
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mcpbench:", err)
	os.Exit(1)
}

func report(label string, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	q := func(p float64) float64 {
		i := int(p*float64(len(ds))+0.5) - 1
		return float64(ds[max(0, min(i, len(ds)-1))].Microseconds()) / 1000
	}
	fmt.Printf("%8.1f ms p50 %8.1f ms p99  %s\n", q(0.50), q(0.99), label)
}

// prepare generates the workspace unless it exists and returns the memory
// ids. Files are left to age past the caches' racy granule (2 s).
func prepare(dir string, pages, memories int) ([]string, error) {
	if err := os.MkdirAll(filepath.Join(dir, ".home"), 0o755); err != nil {
		return nil, err
	}
	r, err := memory.ResolveRoots(memory.RootOptions{Cwd: dir, Home: filepath.Join(dir, ".home"), Getenv: func(string) string { return "" }})
	if err != nil {
		return nil, err
	}
	root := r.ScopeRoot("project")
	if _, err := os.Stat(filepath.Join(dir, "EchoesVault")); err != nil {
		fmt.Printf("generating %d pages and %d memories in %s\n", pages, memories, dir)
		spec := vaultgen.Default
		spec.Pages, spec.DailyLogs = pages, 5
		if err := vaultgen.Write(dir, spec); err != nil {
			return nil, err
		}
		if _, err := memory.Init(r, []string{"project"}); err != nil {
			return nil, err
		}
		words := []string{"retry", "budget", "service", "boundary", "cache", "index", "merge", "lock", "session", "vault"}
		for i := range memories {
			var b strings.Builder
			for j := range 120 {
				b.WriteString(words[(i*31+j*7)%len(words)])
				b.WriteByte(' ')
			}
			m, err := memory.NewMemory(memory.SaveInput{
				Title: fmt.Sprintf("Memory %d about %s", i, words[i%len(words)]), Body: b.String(),
				Kind: memory.Kinds[i%len(memory.Kinds)], SourceHarness: "bench", Tags: []string{words[(i+3)%len(words)]},
			})
			if err != nil {
				return nil, err
			}
			p := filepath.Join(root, m.Kind+"s", m.ID+".md")
			if err := os.WriteFile(p, m.Serialize(), 0o644); err != nil {
				return nil, err
			}
		}
		time.Sleep(3 * time.Second)
	}
	var ids []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "mem_") && strings.HasSuffix(d.Name(), ".md") {
			ids = append(ids, strings.TrimSuffix(d.Name(), ".md"))
		}
		return err
	})
	if len(ids) == 0 && err == nil {
		err = errors.New("no memories in " + root)
	}
	return ids, err
}

// server is one running `git echoes mcp`.
type server struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func start(bin, dir string) (*server, error) {
	cmd := exec.Command(bin, "mcp", "--workspace", dir)
	cmd.Env = []string{"HOME=" + filepath.Join(dir, ".home"), "PATH=" + os.Getenv("PATH"), "ECC_MEMORY_HARNESS=bench",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	if _, err := s.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "mcpbench", "version": "1"}}); err != nil {
		return nil, err
	}
	if err := s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *server) send(msg map[string]any) error {
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.in.Write(append(data, '\n'))
	return err
}

// request sends one request and waits for its answer.
func (s *server) request(method string, params any) (json.RawMessage, error) {
	s.id++
	if err := s.send(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &resp); err != nil {
			return nil, fmt.Errorf("bad answer %q: %w", line, err)
		}
		if resp.ID == nil || *resp.ID != s.id {
			continue // a notification
		}
		if resp.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, resp.Error)
		}
		return resp.Result, nil
	}
}

// call times one tools/call; a tool error counts as a failure.
func (s *server) call(name string, args map[string]any) (time.Duration, error) {
	t := time.Now()
	res, err := s.request("tools/call", map[string]any{"name": name, "arguments": args})
	d := time.Since(t)
	if err != nil {
		return 0, err
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(res, &r); err != nil || r.IsError {
		return 0, fmt.Errorf("tool error: %.300s", res)
	}
	return d, nil
}

// cpu is the server's user+system CPU time so far (Linux /proc; 0
// elsewhere), which unlike latency does not depend on the machine's load.
func (s *server) cpu() time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the parenthesized command name: state is field 3,
	// utime and stime are fields 14 and 15, in clock ticks (USER_HZ, 100).
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

func (s *server) close() {
	_ = s.in.Close()
	_ = s.cmd.Wait()
}
