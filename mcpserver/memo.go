package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/fswatch"
	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// The answer memo (issue 19): a read-only tool's answer is kept and given
// again while the watcher proves that nothing under the trees the tool
// reads has changed since the answer was computed. The proof is
// fswatch.Watcher.Sync, a barrier per call: every change completed before
// the call began has moved the watcher's generation, so an answer stored
// under the generation a call sees is the answer a fresh computation would
// give. When Sync cannot prove it (no watcher, a watch that could not be
// set up, an overflow being recovered from, Windows) the call runs as it
// always did, revalidating every file by stamp; nothing is stored.
//
// A memo stands in for a computation, never decides one: only successful
// results are kept (a tool error or a JSON-RPC error is computed again on
// every call), the key is everything else the answer depends on (the
// tool, its arguments, the session's protocol revision for resource links,
// the lone-surrogate flag, the memory roots the call resolved), and the
// memo is bounded.

// memoTools are the read-only tools answered from the memo, with the
// trees each one reads.
var memoTools = map[string]func(cfg *Config) (trees []string, key string, ok bool){
	"echoes_search": vaultTrees,
	"echoes_find":   findTrees,
	"memory_search": memoryTrees,
	"memory_read":   memoryTrees,
}

// vaultTrees: the vault (pages, daily entries, the marker). Not the
// runtime directory: outside Git the find index lives there
// (.echoes-vault/cache), and its own updates must not count as changes.
func vaultTrees(cfg *Config) ([]string, string, bool) {
	if cfg.Engine == nil {
		return nil, "", false
	}
	ws := cfg.Engine.WS
	return []string{ws.Vault}, "", true
}

// findTrees: the vault and the memory roots find resolves from the
// workspace (gitvault/find open).
func findTrees(cfg *Config) ([]string, string, bool) {
	trees, _, ok := vaultTrees(cfg)
	if !ok {
		return nil, "", false
	}
	r, err := memory.ResolveRoots(memory.RootOptions{Cwd: cfg.Engine.WS.Root})
	if err != nil {
		return nil, "", false
	}
	return append(trees, r.ProjectVault, r.UserVault), r.ProjectVault + "\x00" + r.UserVault, true
}

// memoryTrees: the memory roots, resolved per call as the tools resolve
// them (ecc-conformance §3.1): a call from another directory, or with other
// overrides, has other roots and so another key.
func memoryTrees(cfg *Config) ([]string, string, bool) {
	r, err := memory.ResolveRoots(memory.RootOptions{Cwd: cfg.MemoryCwd, Getenv: cfg.Getenv})
	if err != nil {
		return nil, "", false
	}
	return []string{r.ProjectVault, r.UserVault}, r.Cwd + "\x00" + r.ProjectRoot + "\x00" + r.ProjectVault + "\x00" + r.UserVault, true
}

// Bounds of the memo: answers are at most --max-output characters (or the
// memory tools' 1 MiB), so a few hundred of them stay within memoBytes.
const (
	memoEntries = 256
	memoBytes   = 32 << 20
)

// MemoStats counts what the memo did (Config.Stats): mcp --verbose
// reports it at the end of a session, and tests check that the memo was
// used at all.
type MemoStats struct {
	Hits, Misses, Unproven atomic.Int64
}

func (s *MemoStats) String() string {
	return fmt.Sprintf("answers from memory: %d, computed: %d, computed without proof of freshness: %d",
		s.Hits.Load(), s.Misses.Load(), s.Unproven.Load())
}

type memo struct {
	w     *fswatch.Watcher
	stats *MemoStats

	mu      sync.Mutex
	entries map[string]*memoEntry
	bytes   int
}

type memoEntry struct {
	trees string // the trees gen counts (generations of other trees are not comparable)
	gen   uint64
	res   *mcp.CallToolResult
	size  int

	// enc is the result's JSON as the SDK marshalled it the first time
	// it was sent (encode.go), so that an answer from memory is not
	// marshalled again.
	enc atomic.Pointer[encodedResult]
}

func newMemo(w *fswatch.Watcher, stats *MemoStats) *memo {
	if stats == nil {
		stats = &MemoStats{}
	}
	return &memo{w: w, stats: stats, entries: map[string]*memoEntry{}}
}

// install wraps the run of every memo tool in tools.
func (m *memo) install(cfg *Config, tools []*tool) {
	if m == nil || m.w == nil {
		return
	}
	// Memory scans of every tool reuse a whole scan while nothing under
	// the roots changed (gitvault/memory scanmemo.go): memory_read of
	// another id needs the same scan.
	cfg.memoryCache.SetFreshness(func(dirs []string) (uint64, bool) {
		m.w.Watch(dirs...)
		return m.w.Sync(dirs...)
	})
	for _, t := range tools {
		if trees, ok := memoTools[t.def.Name]; ok {
			t.run = m.wrap(cfg, t.def.Name, trees, t.run)
			// Watched from the start, so the first call is already served
			// by events (each call watches the trees it resolves again).
			if dirs, _, ok := trees(cfg); ok {
				m.w.Watch(dirs...)
			}
		}
	}
}

func (m *memo) wrap(cfg *Config, name string, trees func(*Config) ([]string, string, bool),
	run func(context.Context, *pyjson.Obj) (*mcp.CallToolResult, error)) func(context.Context, *pyjson.Obj) (*mcp.CallToolResult, error) {
	return func(ctx context.Context, args *pyjson.Obj) (*mcp.CallToolResult, error) {
		dirs, rootsKey, ok := trees(cfg)
		if !ok {
			return run(ctx, args)
		}
		// Trees are watched before the barrier: a tree new to the watcher
		// moves the generation, so nothing stored before counts for it.
		m.w.Watch(dirs...)
		gen, fresh := m.w.Sync(dirs...)
		if !fresh {
			m.stats.Unproven.Add(1)
			return run(ctx, args)
		}
		// The memory tools' scan memo may use this barrier's proof
		// instead of taking a second one in the same call (issue 19).
		ctx = context.WithValue(ctx, proofKey{}, &memory.Proof{Dirs: dirs, Gen: gen})
		proto, _ := ctx.Value(protocolKey{}).(string)
		lone := "0"
		if hadLoneSurrogate(ctx) {
			lone = "1"
		}
		key := name + "\x00" + proto + "\x00" + lone + "\x00" + rootsKey + "\x00" + pyjson.Compact(args.Value())
		if res, e, ok := m.get(key, gen); ok {
			m.stats.Hits.Add(1)
			keepEncoding(ctx, e)
			return res, nil
		}
		m.stats.Misses.Add(1)
		res, err := run(ctx, args)
		if err == nil && res != nil && !res.IsError {
			structured(res) // once, here: handle leaves a result that has it alone
			keepEncoding(ctx, m.put(key, strings.Join(dirs, "\x00"), gen, res))
		}
		return res, err
	}
}

// proofKey carries the *memory.Proof of the barrier a memo tool's call took
// (wrap) to the tool's run.
type proofKey struct{}

// callProof is the proof wrap took for this call, or nil.
func callProof(ctx context.Context) *memory.Proof {
	p, _ := ctx.Value(proofKey{}).(*memory.Proof)
	return p
}

// get returns a copy of the kept answer when it was computed under gen.
func (m *memo) get(key string, gen uint64) (*mcp.CallToolResult, *memoEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	if !ok || e.gen != gen {
		return nil, nil, false
	}
	cp := *e.res
	return &cp, e, true
}

// put keeps res and returns its entry (nil when it is too large to keep).
func (m *memo) put(key, trees string, gen uint64, res *mcp.CallToolResult) *memoEntry {
	size := len(key)
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			size += len(tc.Text)
		} else {
			size += 256
		}
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		size += len(raw)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.entries[key]; ok {
		m.bytes -= old.size
		delete(m.entries, key)
	}
	// Entries of an older generation of the same trees can never be given
	// again.
	for k, e := range m.entries {
		if e.trees == trees && e.gen != gen {
			m.bytes -= e.size
			delete(m.entries, k)
		}
	}
	if size > memoBytes/4 {
		return nil
	}
	for len(m.entries) >= memoEntries || m.bytes+size > memoBytes {
		for k, e := range m.entries { // any one: the memo is a cache
			m.bytes -= e.size
			delete(m.entries, k)
			break
		}
	}
	cp := *res
	e := &memoEntry{trees: trees, gen: gen, res: &cp, size: size}
	m.entries[key] = e
	m.bytes += size
	return e
}
