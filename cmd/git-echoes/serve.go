package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/viewer"
)

// `git echoes serve`: the read-only local web viewer (viewer). It
// prints the URL, with its token, on stdout, and serves until SIGINT or
// SIGTERM.

func init() { registerCommand("serve", runServe) }

const serveUsage = `usage: git echoes serve [--workspace PATH] [--port N] [--open] [--scope user]

Serve a read-only web viewer of the EchoesVault pages and the ECC memory
vault on loopback (127.0.0.1 and ::1), until interrupted. The URL printed
on stdout carries a random token that every request must present (a cookie
after the first visit); requests for another Host, any method but GET and
HEAD, and paths outside the vault are refused. Nothing is written and no
lock is taken.

In a Git repository with commits, a page shows its history (git echoes log
--follow: commit, date, author, agent, summary, lines; the 50 most recent),
and the review view shows the memory diff between two revisions (git echoes
diff: by default the merge base with the upstream against HEAD, else
HEAD~1 against HEAD). Search is ranked (git echoes find: pages, daily
entries, memories) or literal (git echoes search, memory search); the
ranked index is held in memory, never the one under .git/echoes/find.
Pages and memories carry the freshness badge of git echoes stale
(fresh, drifted, moved, missing, uncited); a page lists the commits that
changed what it cites and links the review of the range since its
anchor. The pages index shows screens of 100 rows (page=N).

  --workspace PATH   project directory (default: the current directory)
  --port N           port to listen on (default: a free port)
  --open             open the URL in the desktop's browser
  --scope user       also show the user scope of the memory vault

Environment: ECC_MEMORY_PROJECT_ROOT, ECC_MEMORY_USER_ROOT (memory roots).

Exit status: 0 after SIGINT or SIGTERM (a clean shutdown); 2 for a usage
error or when the viewer cannot start (no workspace, bad memory roots, no
free loopback port), with {"ok": false, "error": ...} on stderr; 1 when
serving fails after it started.
`

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("git echoes serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	workspace := fs.String("workspace", "", "")
	port := fs.Int("port", 0, "")
	open := fs.Bool("open", false, "")
	scope := fs.String("scope", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			io.WriteString(stdout, serveUsage)
			return exitOK
		}
		return serveUsageError(stderr, err.Error())
	}
	if fs.NArg() > 0 {
		return serveUsageError(stderr, "unrecognized arguments: "+fs.Arg(0))
	}
	if *port < 0 || *port > 65535 || fs.Changed("port") && *port == 0 {
		return serveUsageError(stderr, "--port must be between 1 and 65535")
	}
	if fs.Changed("scope") && *scope != "user" {
		return serveUsageError(stderr, "--scope accepts only user")
	}

	eng, err := gitvault.Open(gitvault.Options{Workspace: *workspace})
	if err != nil {
		return fail(stderr, err)
	}
	// Memory roots follow the reference: from the physical cwd, unless
	// --workspace names the project (as git echoes mcp does).
	roots, err := memory.ResolveRoots(memory.RootOptions{Cwd: memoryCwd(fs.Changed("workspace"), eng.WS.Root)})
	if err != nil {
		return fail(stderr, err)
	}
	token, err := viewer.NewToken()
	if err != nil {
		return fail(stderr, fmt.Errorf("cannot make a token: %w", err))
	}
	listeners, hosts, err := viewer.Listen(*port)
	if err != nil {
		return fail(stderr, err)
	}
	// Ranked search over an index held in memory: find's index under
	// .git/echoes/find is never opened (opening it may write).
	ranked := viewer.NewRankedSearch(eng, roots, *scope == "user")
	cfg := viewer.Config{Engine: eng, Roots: roots, UserScope: *scope == "user", Token: token, Hosts: hosts,
		Search:  ranked,
		History: &viewer.LogHistory{Engine: eng}, // no section until the repository has commits
	}
	if eng.WS.InGit {
		cfg.Review = &viewer.DiffReview{Engine: eng}
		cfg.Freshness = &viewer.GitFreshness{Engine: eng, Roots: roots} // git echoes stale's verdicts, in memory
	}
	srv, err := viewer.New(cfg)
	if err != nil {
		closeAll(listeners)
		return fail(stderr, err)
	}

	leaveSignalsToCommand() // graceful shutdown below instead of exit 130/143
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	errc := make(chan error, len(listeners))
	for _, l := range listeners {
		go func(l net.Listener) { errc <- hs.Serve(l) }(l)
	}
	go ranked.Warm() // the first search need not build the index
	fmt.Fprintln(stdout, srv.URL())
	fmt.Fprintf(stderr, "git echoes serve: serving %s read-only on %v; stop with Ctrl-C\n", eng.WS.Root, hosts)
	if *open {
		if err := openBrowser(srv.URL()); err != nil {
			fmt.Fprintf(stderr, "git echoes serve: cannot open a browser: %s\n", err)
		}
	}
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "git echoes serve: %s\n", err)
			_ = hs.Close()
			return exitServeError
		}
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdown)
	return exitOK
}

// openBrowser starts the OS's opener on url without waiting for it.
func openBrowser(url string) error {
	name, args, err := viewer.OpenCommand(runtime.GOOS, url)
	if err != nil {
		return err
	}
	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

func closeAll(ls []net.Listener) {
	for _, l := range ls {
		_ = l.Close()
	}
}

func serveUsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "%sgit echoes serve: error: %s\n", serveUsage, msg)
	return exitUsage
}
