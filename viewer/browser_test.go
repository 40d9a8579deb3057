//go:build unix

package viewer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/testenv"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// The browser test (issue 14): the real `git echoes serve` on a fixture
// vault, driven by a real headless Chromium. It loads every view, checks
// the DOM, fails on any console error, exception or request that leaves
// the viewer, follows links, checks that the Content-Security-Policy stops
// an injected script, and saves a screenshot of each view.
//
// Chromium is Debian's `chromium` package (/usr/bin/chromium). Without it
// the test is skipped, except in CI (CI set), where it fails: CI must not
// skip it silently. CHROMIUM names another binary. Screenshots go to
// $ECHOES_SCREENSHOTS when set (created), else to the test's temp dir.

func chromiumPath(t *testing.T) string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed, and CI must run the browser test: install the Debian package chromium (apt-get install -y chromium)")
	}
	t.Skip("skipping the browser test: chromium is not installed (Debian: apt-get install -y chromium; or set CHROMIUM)")
	return ""
}

// buildGitEchoes builds the real command once per test binary. Call it
// before newFixture: the fixture points HOME at a temporary directory, and
// with it Go's default build cache.
var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

func buildGitEchoes(t *testing.T) string {
	buildOnce.Do(func() {
		dir, err := testenv.SharedTempDir("git-echoes-viewer-bin")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "git-echoes")
		goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		if _, err := os.Stat(goBin); err != nil {
			goBin = "go"
		}
		cmd := exec.Command(goBin, "build", "-o", builtBin, "github.com/git-echoes/git-echoes/cmd/git-echoes")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// serveProcess is a running `git echoes serve`.
type serveProcess struct {
	cmd    *exec.Cmd
	url    string // with the token
	base   string // http://127.0.0.1:PORT
	stderr *strings.Builder
}

func startServe(t *testing.T, f *fixture, args ...string) *serveProcess {
	t.Helper()
	bin := buildGitEchoes(t)
	cmd := exec.Command(bin, append([]string{"serve", "--workspace", f.root}, args...)...)
	cmd.Dir = f.root
	cmd.Env = f.environ
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &serveProcess{cmd: cmd, stderr: &strings.Builder{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v (stderr: %s)", err, p.stderr)
	}
	p.url = strings.TrimSpace(line)
	u, err := url.Parse(p.url)
	if err != nil || u.Scheme != "http" || !strings.HasPrefix(u.Host, "127.0.0.1:") || len(u.Query().Get("token")) != 64 {
		t.Fatalf("printed URL %q", p.url)
	}
	p.base = "http://" + u.Host
	return p
}

// stop interrupts the server and checks that it ends cleanly.
func (p *serveProcess) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve ended with %v (stderr: %s)", err, p.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("serve did not stop on SIGINT")
	}
}

// browserLog collects what the page reports.
type browserLog struct {
	mu       sync.Mutex
	problems []string // console errors, exceptions, error log entries
	requests []string // every URL requested
	blocked  []string // requests the browser blocked, with the reason
}

func (b *browserLog) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range e.Args {
				parts = append(parts, a.Description+string(a.Value))
			}
			b.problems = append(b.problems, "console."+string(e.Type)+": "+strings.Join(parts, " "))
		}
	case *runtime.EventExceptionThrown:
		b.problems = append(b.problems, "exception: "+e.ExceptionDetails.Text)
	case *cdplog.EventEntryAdded:
		if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
			b.problems = append(b.problems, "log "+string(e.Entry.Level)+": "+e.Entry.Text+" "+e.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		b.requests = append(b.requests, e.Request.URL)
	case *network.EventLoadingFailed:
		b.blocked = append(b.blocked, string(e.BlockedReason)+" "+e.ErrorText)
	}
}

func (b *browserLog) take() (problems, requests, blocked []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	problems, requests, blocked = b.problems, b.requests, b.blocked
	b.problems, b.requests, b.blocked = nil, nil, nil
	return
}

func newBrowser(t *testing.T, path string) (context.Context, *browserLog) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	bl := &browserLog{}
	if err := chromedp.Listen(ctx, bl.listen); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx, bl
}

func screenshotDir(t *testing.T) string {
	if d := os.Getenv("ECHOES_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

func run[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	tctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(tctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func TestBrowser(t *testing.T) {
	path := chromiumPath(t)
	buildGitEchoes(t) // before the fixture isolates HOME (and so Go's build cache)
	f := newFixture(t)
	p := startServe(t, f)
	ctx, bl := newBrowser(t, path)
	shots := screenshotDir(t)

	// The printed URL: token → cookie → redirect to the overview.
	run(t, ctx, "open the printed URL", chromedp.Navigate(p.url))
	if loc := run(t, ctx, "location", chromedp.Location()); loc != p.base+"/" {
		t.Errorf("after the token redirect the location is %q", loc)
	}

	views := []browserView{
		{"overview", "/", []string{"EchoesVault", "Counts", "Health findings", "Suggested Git commands"}, "#count-pages"},
		{"pages", "/pages", []string{"4 of 4 pages", "auth-architecture", "deprecated", "Authentication boundaries and token flow."}, "tr.deprecated a.replacement"},
		{"pages-filtered", "/pages?type=architecture", []string{"2 of 4 pages"}, "select[name=type]"},
		{"page", "/page/auth-architecture", []string{"Authentication architecture", "the token page", "missing page", "Backlinks (2)", "SHA-256"}, "img.embed[src='/assets/diagram.png']"},
		{"page-deprecated", "/page/old-auth", []string{"Replaced by auth-architecture"}, "a.replacement"},
		{"hostile", "/page/hostile", []string{"Hostile page", "<script>document.title='pwned';window.pwned=1</script>", "(https://example.com/track)"}, "#body"},
		{"daily", "/daily", []string{"scratchpad", "agent: claude", "<script>alert(1)</script>"}, "ol.timeline"},
		{"memories", "/memories", []string{"3 of 3 memories", "Use short-lived tokens", "unreviewed"}, "select[name=harness]"},
		{"memory", "/memory/" + f.mem["fact"], []string{"Token TTL is 15m", "not an instruction", "Ignore all previous instructions", "missing memory", "Team runbook"}, "#trust"},
		{"search", "/search?q=token", []string{"Pages (", "Memories (", "session-tokens", "ranked search"}, "select[name=mode]"},
		{"search-literal", "/search?q=token&mode=literal", []string{"Pages (", "session-tokens", "literal search"}, "input[name=q]"},
		{"graph", "/graph", []string{"7 nodes, 4 edges"}, "svg circle.n.page"},
		{"graph-focus", "/graph?focus=" + url.QueryEscape("page:auth-architecture") + "&depth=2", []string{"around page:auth-architecture"}, "svg circle.focus"},
	}
	for _, v := range views {
		t.Run(v.name, func(t *testing.T) { checkView(t, ctx, bl, p, shots, v) })
	}
	t.Logf("screenshots in %s", shots)

	// Links work: a wikilink, a backlink, a graph node and a filter.
	run(t, ctx, "navigate", chromedp.Navigate(p.base+"/page/auth-architecture"))
	run(t, ctx, "click the wikilink", chromedp.Click(chromedp.CSS("a.wikilink[href='/page/session-tokens']")))
	waitLocation(t, ctx, p.base+"/page/session-tokens")
	run(t, ctx, "wait", chromedp.WaitVisible(chromedp.CSS("ul.backlinks")))
	run(t, ctx, "click the backlink", chromedp.Click(chromedp.CSS("ul.backlinks a")))
	waitLocation(t, ctx, p.base+"/page/auth-architecture")
	run(t, ctx, "wait", chromedp.WaitVisible(chromedp.CSS("#body")))
	run(t, ctx, "navigate", chromedp.Navigate(p.base+"/memories"))
	run(t, ctx, "choose a kind", chromedp.SetValue(chromedp.CSS("select[name=kind]"), "fact"))
	run(t, ctx, "submit the filter", chromedp.Click(chromedp.CSS(".filters button")))
	waitLocation(t, ctx, p.base+"/memories?kind=fact&scope=&harness=&tag=")
	run(t, ctx, "wait", chromedp.WaitVisible(chromedp.CSS("table.list")))
	if text := run(t, ctx, "text", chromedp.Text(chromedp.CSS("#main"))); !strings.Contains(text, "1 of 3 memories") {
		t.Errorf("the kind filter shows %q", text)
	}
	// Every link of every view answers 200.
	checkAllLinks(t, ctx, p, []string{"/", "/pages", "/page/auth-architecture", "/daily", "/memories", "/graph", "/memory/" + f.mem["fact"]})
	problems, requests, _ := bl.take()
	for _, pr := range problems {
		t.Errorf("browser reported: %s", pr)
	}
	for _, r := range requests {
		if !strings.HasPrefix(r, p.base+"/") {
			t.Errorf("request outside the viewer: %s", r)
		}
	}

	// The server refuses the browser a request without the cookie, from a
	// fresh browser context (no cookie).
	ctx2, bl2 := newBrowser(t, path)
	run(t, ctx2, "navigate without token", chromedp.Navigate(p.base+"/pages"))
	if text := run(t, ctx2, "body", chromedp.Text(chromedp.CSS("body"))); !strings.Contains(text, "refused: missing token") {
		t.Errorf("without the token the browser got %q", text)
	}
	bl2.take() // the 401 is reported by the browser as an error: expected here
	p.stop(t)
}

// waitLocation waits until the page's address is want and the document has
// loaded (a click starts a navigation that has not yet happened).
func waitLocation(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	// While the navigation runs, the browser may answer a question with
	// "Inspected target navigated or closed" or "Execution context was
	// destroyed": that is the navigation this waits for, so ask again; only
	// the deadline fails the test.
	var loc, state string
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		loc, err = chromedp.Run(tctx, chromedp.Location())
		if err == nil {
			state, err = chromedp.Run(tctx, chromedp.Evaluate[string]("document.readyState"))
		}
		cancel()
		if err == nil && loc == want && state == "complete" {
			return
		}
	}
	t.Fatalf("location %q (%s, last error %v), want %q", loc, state, err, want)
}

// checkAllLinks loads every same-origin href of the given views in the
// browser's session and expects 200.
func checkAllLinks(t *testing.T, ctx context.Context, p *serveProcess, paths []string) {
	t.Helper()
	seen := map[string]bool{}
	var links []string
	for _, path := range paths {
		run(t, ctx, "navigate", chromedp.Navigate(p.base+path))
		hrefs := run(t, ctx, "links", chromedp.Evaluate[[]string](`[...document.querySelectorAll('a[href]')].map(a => new URL(a.getAttribute('href'), location.href).href)`))
		for _, h := range hrefs {
			h, _, _ = strings.Cut(h, "#")
			if !seen[h] {
				seen[h] = true
				links = append(links, h)
			}
		}
	}
	if len(links) < 20 {
		t.Fatalf("only %d links found", len(links))
	}
	for _, l := range links {
		if !strings.HasPrefix(l, p.base+"/") {
			t.Errorf("link outside the viewer: %s", l)
			continue
		}
		if strings.HasPrefix(l, p.base+"/assets/") && imageTypes[strings.ToLower(filepath.Ext(l))] == "" {
			// A download, which a navigation aborts: fetched with the token.
			u, _ := url.Parse(p.url)
			req, _ := http.NewRequest(http.MethodGet, l+"?token="+u.Query().Get("token"), nil)
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			resp, err := client.Do(req)
			if err != nil {
				t.Errorf("%s: %v", l, err)
				continue
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusSeeOther {
				t.Errorf("%s: status %d", l, resp.StatusCode)
			}
			continue
		}
		resp := run(t, ctx, "load "+l, chromedp.NavigateResponse(l))
		if resp.Status != http.StatusOK {
			t.Errorf("%s: status %d", l, resp.Status)
		}
	}
}

// TestBrowserCSP: a page that does carry a script and an external image
// (which the viewer never emits) is served with the viewer's headers; the
// browser must run nothing and fetch nothing from elsewhere, and report the
// violations.
func TestBrowserCSP(t *testing.T) {
	path := chromiumPath(t)
	var external int
	var mu sync.Mutex
	outside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		external++
		mu.Unlock()
		io.WriteString(w, "x")
	}))
	defer outside.Close()
	hostile := `<!doctype html><html><head><title>ok</title><link rel="stylesheet" href="` + outside.URL + `/x.css"></head><body>
<script>document.title='pwned'</script>
<img src="` + outside.URL + `/pixel.png" alt="">
<img src="x" onerror="document.title='pwned-onerror'">
<a id="js" href="javascript:document.title='pwned-click'">js</a>
<iframe src="` + outside.URL + `/frame"></iframe>
<p id="done">done</p></body></html>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secureHeaders(w.Header())
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, hostile)
	}))
	defer srv.Close()
	ctx, bl := newBrowser(t, path)
	run(t, ctx, "navigate", chromedp.Navigate(srv.URL+"/"))
	run(t, ctx, "wait", chromedp.WaitVisible(chromedp.CSS("#done")))
	run(t, ctx, "click the javascript: link", chromedp.Click(chromedp.CSS("#js")))
	time.Sleep(500 * time.Millisecond) // let a script, if one could run, run
	title := run(t, ctx, "title", chromedp.Title())
	if title != "ok" {
		t.Errorf("a script ran: title %q", title)
	}
	problems, _, _ := bl.take()
	csp := 0
	for _, p := range problems {
		if strings.Contains(p, "Content Security Policy") {
			csp++
		}
	}
	if csp == 0 {
		t.Errorf("no CSP violation reported; browser said %q", problems)
	}
	mu.Lock()
	defer mu.Unlock()
	if external != 0 {
		t.Errorf("%d requests reached another origin", external)
	}
}

var _ = errors.New

// browserView is one view the browser loads and checks.
type browserView struct {
	name, path string
	want       []string // texts of #main
	selector   string   // an element the view must have
}

// checkView loads one view and checks its DOM (the expected texts, nothing
// executable, nothing foreign, accessibility basics), saves a screenshot,
// and fails on anything the browser reported.
func checkView(t *testing.T, ctx context.Context, bl *browserLog, p *serveProcess, shots string, v browserView) {
	t.Helper()
	run(t, ctx, "navigate", chromedp.Navigate(p.base+v.path))
	run(t, ctx, "wait for "+v.selector, chromedp.WaitVisible(chromedp.CSS(v.selector)))
	text := run(t, ctx, "main text", chromedp.Text(chromedp.CSS("#main")))
	for _, w := range v.want {
		if !strings.Contains(text, w) {
			t.Errorf("#main lacks %q", w)
		}
	}
	// Nothing executes: no script element, no handler ran, no
	// link to a script scheme or another origin.
	state := run(t, ctx, "inspect the DOM", chromedp.Evaluate[string](`JSON.stringify({
			title: document.title,
			pwned: typeof window.pwned,
			scripts: document.scripts.length,
			handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes].some(a => a.name.startsWith('on'))).length,
			foreign: [...document.querySelectorAll('[href],[src],[action]')]
				.map(e => e.getAttribute('href') ?? e.getAttribute('src') ?? e.getAttribute('action'))
				.filter(u => !(u.startsWith('/') && !u.startsWith('//') || u.startsWith('#')))
		})`))
	if strings.Contains(state, "pwned\"") && !strings.Contains(state, `"pwned":"undefined"`) || !strings.Contains(state, `"scripts":0,"handlers":0,"foreign":[]`) {
		t.Errorf("DOM state %s", state)
	}
	if strings.Contains(state, `"title":"pwned"`) {
		t.Errorf("a script ran: %s", state)
	}
	// Accessibility basics: a language, one h1, a labelled
	// navigation, alt text on every image, a label on every form
	// control, an accessible name on every link.
	a11y := run(t, ctx, "accessibility checks", chromedp.Evaluate[[]string](`(() => {
			const bad = [];
			if (!document.documentElement.lang) bad.push('no lang');
			if (document.querySelectorAll('h1').length !== 1) bad.push('h1 count ' + document.querySelectorAll('h1').length);
			if (!document.querySelector('nav[aria-label]')) bad.push('no labelled nav');
			document.querySelectorAll('img:not([alt])').forEach(e => bad.push('img without alt: ' + e.getAttribute('src')));
			document.querySelectorAll('input:not([type=hidden]), select, textarea').forEach(e => { if (!e.closest('label') && !e.labels?.length) bad.push('unlabelled ' + e.name); });
			document.querySelectorAll('a[href]').forEach(e => { if (!e.textContent.trim() && !e.querySelector('title')) bad.push('link without a name: ' + e.getAttribute('href')); });
			return bad;
		})()`))
	for _, a := range a11y {
		t.Errorf("accessibility: %s", a)
	}
	shot := run(t, ctx, "screenshot", chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(shots, v.name+".png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	problems, requests, _ := bl.take()
	for _, pr := range problems {
		t.Errorf("browser reported: %s", pr)
	}
	for _, r := range requests {
		if !strings.HasPrefix(r, p.base+"/") {
			t.Errorf("request outside the viewer: %s", r)
		}
	}
}

// TestBrowserHistoryReview: on a repository with history, a page shows its
// history across a rename, the review view shows the default comparison
// (HEAD~1..HEAD here: no upstream) with the rename and the deprecation,
// and ranked search finds an inflected word; the form of the review
// submits from the browser.
func TestBrowserHistoryReview(t *testing.T) {
	path := chromiumPath(t)
	buildGitEchoes(t)
	f := newFixture(t)
	f.commitAll(t, "Add the vault")
	pages := f.eng.WS.Pages
	if err := os.Rename(filepath.Join(pages, "hostile.md"), filepath.Join(pages, "tricks.md")); err != nil {
		t.Fatal(err)
	}
	testenv.WriteFile(t, filepath.Join(pages, "session-tokens.md"), strings.Replace(fixturePages["session-tokens.md"],
		"status: active", "status: deprecated", 1)+"\nReplaced by [[auth-architecture]].\n")
	f.commitAll(t, "Deprecate the token page, rename the hostile one\n\nAgent: claude")
	p := startServe(t, f)
	ctx, bl := newBrowser(t, path)
	shots := screenshotDir(t)
	run(t, ctx, "open the printed URL", chromedp.Navigate(p.url))
	for _, v := range []browserView{
		{"page-history", "/page/tricks", []string{"History", "renamed from hostile.md", "added", "Ada Lovelace <ada@example.com>", "claude", "A page full of <script> tricks."}, "#history table"},
		{"review", "/review", []string{"2 change(s) from HEAD~1 to HEAD", "renamed", "deprecated", "tricks.md", "-status: active", "+status: deprecated"}, "pre.diff"},
		{"search-ranked", "/search?q=describing", []string{"ranked search", "auth-architecture", "Tokens are described in"}, "ol.hits"},
	} {
		t.Run(v.name, func(t *testing.T) { checkView(t, ctx, bl, p, shots, v) })
	}
	// The review form, submitted from the browser.
	run(t, ctx, "navigate", chromedp.Navigate(p.base+"/review"))
	run(t, ctx, "set from", chromedp.SetValue(chromedp.CSS("input[name=from]"), "HEAD~1..HEAD"))
	run(t, ctx, "clear to", chromedp.Clear(chromedp.CSS("input[name=to]")))
	run(t, ctx, "submit", chromedp.Click(chromedp.CSS(".filters button")))
	waitLocation(t, ctx, p.base+"/review?from=HEAD%7E1..HEAD&to=")
	run(t, ctx, "wait", chromedp.WaitVisible(chromedp.CSS("pre.diff")))
	if text := run(t, ctx, "text", chromedp.Text(chromedp.CSS("#main"))); !strings.Contains(text, "(1 deprecated)") {
		t.Errorf("the submitted review shows %q", text)
	}
	problems, _, _ := bl.take()
	for _, pr := range problems {
		t.Errorf("browser reported: %s", pr)
	}
	p.stop(t)
}

// TestBrowserPagesAndFreshness (issues 19 and 18): in a real Chromium,
// the pages index of a vault of several screens is paged by its links
// (next, a number, previous) and by a filter, keeping its order and
// count; a page citing code that changed shows its freshness badge and
// drift commits, and its review link opens the review view of the range
// since the page's anchor.
func TestBrowserPagesAndFreshness(t *testing.T) {
	path := chromiumPath(t)
	buildGitEchoes(t)
	f, anchor, head := freshnessFixture(t)
	addBulkPages(t, f, 230)
	p := startServe(t, f)
	ctx, bl := newBrowser(t, path)
	shots := screenshotDir(t)
	run(t, ctx, "open the printed URL", chromedp.Navigate(p.url))
	for _, v := range []browserView{
		{"pages-screen-1", "/pages", []string{"236 of 236 pages.", "Showing 1–100, screen 1 of 3", "Freshness", "fresh", "uncited"}, "nav.pager a[rel=next]"},
		{"page-freshness", "/page/token-code", []string{"Freshness", "missing", "src/auth.go:4-6", "drifted", "rotate keys",
			"Ada Lovelace <ada@example.com>", "Review the changes since the anchor"}, "#freshness table.drift"},
	} {
		t.Run(v.name, func(t *testing.T) { checkView(t, ctx, bl, p, shots, v) })
	}
	shown := func() string {
		t.Helper()
		run(t, ctx, "wait", chromedp.WaitVisible(chromedp.CSS("#count")))
		return run(t, ctx, "count", chromedp.Text(chromedp.CSS("#count")))
	}
	firstRow := func() string {
		t.Helper()
		return run(t, ctx, "first row", chromedp.Text(chromedp.CSS("table.list tbody tr td a")))
	}
	run(t, ctx, "navigate", chromedp.Navigate(p.base+"/pages"))
	top := firstRow()
	run(t, ctx, "click next", chromedp.Click(chromedp.CSS("nav.pager a[rel=next]")))
	waitLocation(t, ctx, p.base+"/pages?page=2")
	if c := shown(); !strings.Contains(c, "Showing 101–200, screen 2 of 3") {
		t.Errorf("screen 2 says %q", c)
	}
	second := firstRow()
	run(t, ctx, "click screen 3", chromedp.Click(chromedp.CSS("nav.pager a[href='/pages?page=3']")))
	waitLocation(t, ctx, p.base+"/pages?page=3")
	if c := shown(); !strings.Contains(c, "Showing 201–236, screen 3 of 3") {
		t.Errorf("screen 3 says %q", c)
	}
	run(t, ctx, "click previous", chromedp.Click(chromedp.CSS("nav.pager a[rel=prev]")))
	waitLocation(t, ctx, p.base+"/pages?page=2")
	if got := firstRow(); got != second || got == top {
		t.Errorf("screen 2 starts with %q, then %q (screen 1 with %q): the order is not stable", second, got, top)
	}
	run(t, ctx, "choose a status", chromedp.SetValue(chromedp.CSS("select[name=status]"), "deprecated"))
	run(t, ctx, "submit the filter", chromedp.Click(chromedp.CSS(".filters button")))
	waitLocation(t, ctx, p.base+"/pages?type=&stack=&status=deprecated")
	if c := shown(); !strings.Contains(c, "77 of 236 pages. Showing 1–77") {
		t.Errorf("the filtered index says %q", c)
	}

	run(t, ctx, "navigate", chromedp.Navigate(p.base+"/page/token-code"))
	run(t, ctx, "click the review link", chromedp.Click(chromedp.CSS("#review-since")))
	waitLocation(t, ctx, p.base+"/review?from="+anchor+"&to="+head)
	run(t, ctx, "wait", chromedp.WaitVisible(chromedp.CSS("input[name=from]")))
	if text := run(t, ctx, "text", chromedp.Text(chromedp.CSS("#main"))); !strings.Contains(text, "change(s) from") {
		t.Errorf("the review of the range since the anchor shows %q", text)
	}
	problems, requests, _ := bl.take()
	for _, pr := range problems {
		t.Errorf("browser reported: %s", pr)
	}
	for _, r := range requests {
		if !strings.HasPrefix(r, p.base+"/") {
			t.Errorf("request outside the viewer: %s", r)
		}
	}
	p.stop(t)
}
