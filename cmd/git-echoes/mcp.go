package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/git-echoes/git-echoes/internal/buildinfo"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/mcpserver"
)

// `git echoes mcp`: a stdio MCP server over the ECC memory vault and the
// EchoesVault engine. Startup problems (identity, workspace, flags) exit 2
// with one line on stderr, before the MCP session starts, so that a client
// shows the operator why the server is unavailable.

func init() { registerCommand("mcp", runMCP) }

const mcpUsage = `usage: git echoes mcp [--workspace PATH] [--agent NAME] [--memory] [--vault]
                      [--max-output N] [--no-watch] [--verbose]

Serve the memory_* (ECC memory vault) and echoes_* (EchoesVault) tools over
stdio. --memory or --vault serves only that set, with its resources
(echoes://page/{name}, echoes://daily/{entry}, ecc-memory://{id}) and
prompts (echoes-start, echoes-end, memory-handoff).

  --workspace PATH   project directory (default: the Git top level of the
                     current directory; the home directory is refused)
  --agent NAME       EchoesVault writer identity (default: ECC_MEMORY_HARNESS)
  --max-output N     characters per tool result (default 60000; memory_*
                     results default to the 1 MiB bound of the reference)
  --no-watch         no change notification: every call revalidates every
                     file it reads (the default watches the vaults and
                     answers unchanged searches and reads from memory)
  --verbose          say on stderr whether change notification is in use,
                     and why not when it falls back to revalidation

Environment: ECC_MEMORY_HARNESS (required with memory tools: the lowercase
harness slug that signs every memory write and filters every read),
ECC_MEMORY_ALLOW_USER_SCOPE=1 (allow explicit user-scope requests),
ECC_MEMORY_PROJECT_ROOT, ECC_MEMORY_USER_ROOT.
`

// mcpMaxLine bounds one inbound JSON-RPC line. ecc-conformance §17.2 caps
// the memory-only server at 1 MiB; page upserts carry whole pages, so this
// server allows 4 MiB. A longer line is discarded as it is read and
// answered with -32700.
const mcpMaxLine = mcpserver.DefaultMaxLine

func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("git echoes mcp", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	workspace := fs.String("workspace", "", "")
	agent := fs.String("agent", "", "")
	onlyMemory := fs.Bool("memory", false, "")
	onlyVault := fs.Bool("vault", false, "")
	maxOutput := fs.Int("max-output", mcpserver.DefaultMaxOutput, "")
	noWatch := fs.Bool("no-watch", false, "")
	verbose := fs.Bool("verbose", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, mcpUsage)
			return exitOK
		}
		return mcpUsageError(stderr, err.Error())
	}
	if fs.NArg() > 0 {
		return mcpUsageError(stderr, "unrecognized arguments: "+fs.Arg(0))
	}
	if *maxOutput < mcpserver.MinMaxOutput || *maxOutput > mcpserver.MaxMaxOutput {
		return mcpUsageError(stderr, fmt.Sprintf("--max-output must be between %d and %d", mcpserver.MinMaxOutput, mcpserver.MaxMaxOutput))
	}
	serveMemory := *onlyMemory || !*onlyVault
	serveVault := *onlyVault || !*onlyMemory

	harness, hasHarness := os.LookupEnv("ECC_MEMORY_HARNESS")
	if serveMemory {
		if err := mcpserver.CheckHarness(harness); err != nil {
			fmt.Fprintln(stderr, err.Error())
			return exitError
		}
	}

	eng, err := gitvault.Open(gitvault.Options{Workspace: *workspace})
	if err != nil {
		return fail(stderr, err)
	}
	// A client launched from the home directory would otherwise serve (and
	// write) a vault in $HOME without anyone having chosen it.
	if !fs.Changed("workspace") && sameDir(eng.WS.Root, userHome()) {
		fmt.Fprintf(stderr, "git echoes mcp: refusing to start: the workspace resolved to your home directory (%s). "+
			"Start the server inside a project or pass --workspace PATH explicitly.\n", eng.WS.Root)
		return exitError
	}

	identity := ""
	switch {
	case fs.Changed("agent"):
		identity = *agent
	case hasHarness && mcpserver.CheckHarness(harness) == nil:
		identity = harness
	}
	if identity != "" {
		name, err := gitvault.NormalizeAgent(identity)
		if err != nil {
			fmt.Fprintf(stderr, "git echoes mcp: invalid agent identity %q: %s\n", identity, gitvault.ErrorMessage(err))
			return exitError
		}
		identity = name
		if eng, err = gitvault.Open(gitvault.Options{Workspace: eng.WS.Root, Agent: &identity}); err != nil {
			return fail(stderr, err)
		}
	}

	cfg := mcpserver.Config{
		Agent:          identity,
		Memory:         serveMemory,
		Harness:        harness,
		AllowUserScope: os.Getenv("ECC_MEMORY_ALLOW_USER_SCOPE") == "1",
		// Memory roots follow the reference: resolved per call from the
		// process's physical cwd (ecc-conformance §17.1), unless --workspace names one.
		MemoryCwd: memoryCwd(fs.Changed("workspace"), eng.WS.Root),
		MaxOutput: *maxOutput,
		// Memory results keep the reference's 1 MiB bound unless the
		// operator chose a limit.
		MemoryMaxOutput: memoryMaxOutput(fs.Changed("max-output"), *maxOutput),
		// serverInfo.version names the product that answers, the same version
		// `git echoes --version` prints (issue 17), not the protocol engine's.
		Version: buildinfo.Get().Version,
	}
	if serveVault {
		eng.KeepPageTexts(0) // long-lived: echoes_search revalidates kept page texts per call
		cfg.Engine = eng
	}
	if !*noWatch {
		w, stats, done := startMCPWatch(stderr, *verbose) // mcpwatch.go (issue 19)
		defer done()
		cfg.Watcher, cfg.Stats = w, stats
	}
	server, err := mcpserver.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "git echoes mcp: %s\n", err)
		return exitError
	}
	leaveSignalsToCommand() // graceful shutdown below instead of exit 130/143
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Our line-delimited transport, not the SDK's stream decoder: a bad
	// line is answered and skipped, never the end of the session.
	if err := mcpserver.Serve(ctx, server, stdin, stdout, mcpMaxLine); err != nil && !isShutdown(ctx, err) {
		fmt.Fprintf(stderr, "git echoes mcp: %s\n", err)
		return exitServeError
	}
	return exitOK
}

func memoryCwd(explicit bool, root string) string {
	if explicit {
		return root
	}
	return ""
}

func memoryMaxOutput(explicit bool, n int) int {
	if explicit {
		return n
	}
	return 0
}

func mcpUsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "%sgit echoes mcp: error: %s\n", mcpUsage, msg)
	return exitUsage
}

// isShutdown reports the normal ends of a session: the client closed stdin,
// or a signal asked us to stop.
func isShutdown(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, context.Canceled)
}

func userHome() string {
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return ""
}

// sameDir compares two directories after resolving symlinks, so that a
// symlinked $HOME is still recognised.
func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
