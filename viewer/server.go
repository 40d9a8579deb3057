// Package viewer is `git echoes serve`: a read-only local web viewer of the
// EchoesVault pages and the ECC memory vault.
//
// Security model (vault content is untrusted, the listener is local):
//
//   - it listens on loopback only and answers only requests whose Host is
//     one of its own loopback address:port pairs (no DNS rebinding);
//   - every request carries a random token, in the URL the command prints
//     (then a cookie: HttpOnly, SameSite=Strict, Path=/);
//   - only GET and HEAD are answered; nothing is ever written and no lock
//     is taken;
//   - Markdown is rendered without raw HTML, every link resolves inside the
//     vault or is shown as text, and every response carries a strict
//     Content-Security-Policy (no script at all, nothing from another
//     origin), nosniff, frame-ancestors 'none' and no referrer;
//   - assets are read below EchoesVault/assets only, never through a
//     symbolic link.
package viewer

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/git-echoes/git-echoes/gitvault"
	"github.com/git-echoes/git-echoes/gitvault/health"
	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/fswatch"
)

// Config is what one viewer serves.
type Config struct {
	Engine *gitvault.Engine // the EchoesVault workspace
	Roots  *memory.Roots    // the ECC memory vault roots
	// UserScope adds the user scope of the memory vault (--scope user);
	// without it the user scope is never read.
	UserScope bool
	// Token is the secret every request must carry (NewToken).
	Token string
	// Hosts are the exact Host header values accepted: the listeners'
	// loopback address:port pairs (Listen).
	Hosts []string

	// Search answers the search view; nil means LiteralSearch.
	Search Searcher
	// History, when set, adds page histories (git echoes log).
	History History
	// Review, when set, adds the review view (git echoes diff).
	Review Reviewer
	// Freshness, when set, adds the freshness badges of pages and
	// memories (git echoes stale, issue 18).
	Freshness Freshness
	Watch     *fswatch.Watcher // change notification, shown by WatchState (watch.go, issue 19)
}

// Server is the viewer's http.Handler.
type Server struct {
	cfg    Config
	mux    *http.ServeMux
	cookie string
	hosts  map[string]bool
	tmpl   map[string]*template.Template
	pages  *catalog // the pages directory, revalidated per request
	health *health.Inspector
}

// minTokenLen is the shortest token New accepts (NewToken makes 64 hex
// digits: 256 bits).
const minTokenLen = 32

// New checks cfg and returns the handler.
func New(cfg Config) (*Server, error) {
	if cfg.Engine == nil || cfg.Roots == nil {
		return nil, errors.New("viewer: an engine and memory roots are required")
	}
	if len(cfg.Token) < minTokenLen {
		return nil, errors.New("viewer: the token is too short")
	}
	if len(cfg.Hosts) == 0 {
		return nil, errors.New("viewer: no accepted host")
	}
	if cfg.Search == nil {
		cfg.Search = &LiteralSearch{Engine: cfg.Engine, Roots: cfg.Roots, Scopes: memoryScopes(cfg.UserScope)}
	}
	s := &Server{cfg: cfg, hosts: map[string]bool{}, pages: newCatalog(cfg.Engine)}
	s.pages.fresh = s.fresh
	s.health = health.NewInspector(cfg.Engine, s.fresh)
	for _, h := range cfg.Hosts {
		s.hosts[strings.ToLower(h)] = true
	}
	// One cookie name per port: two viewers on different ports of the same
	// host share a cookie jar, and must not overwrite each other's token.
	s.cookie = "echoes_viewer"
	if _, port, err := net.SplitHostPort(cfg.Hosts[0]); err == nil {
		s.cookie += "_" + port
	}
	tmpl, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	s.tmpl = tmpl
	s.routes()
	return s, nil
}

func memoryScopes(user bool) []string {
	if user {
		return []string{"project", "team", "user"}
	}
	return []string{"project", "team"}
}

// NewToken returns 256 random bits in hex (crypto/rand).
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// Listen binds the loopback addresses: 127.0.0.1 on port (0: a free port)
// and ::1 on the same port when the machine has IPv6 loopback. It returns
// the listeners and the Host values to accept.
func Listen(port int) ([]net.Listener, []string, error) {
	if port < 0 || port > 65535 {
		return nil, nil, fmt.Errorf("port must be between 0 and 65535")
	}
	l4, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, nil, err
	}
	p := l4.Addr().(*net.TCPAddr).Port
	ls := []net.Listener{l4}
	hosts := []string{net.JoinHostPort("127.0.0.1", strconv.Itoa(p))}
	if l6, err := net.Listen("tcp6", net.JoinHostPort("::1", strconv.Itoa(p))); err == nil {
		ls = append(ls, l6)
		hosts = append(hosts, net.JoinHostPort("::1", strconv.Itoa(p)))
	}
	return ls, hosts, nil
}

// URL is the address to open: the first host, with the token.
func (s *Server) URL() string {
	return "http://" + s.cfg.Hosts[0] + "/?token=" + url.QueryEscape(s.cfg.Token)
}

// csp allows nothing but this origin's stylesheet and images: no script of
// any kind, no frames, no form posts elsewhere, no plugins.
const csp = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; " +
	"base-uri 'none'; frame-ancestors 'none'"

// assetCSP is sent with vault files: an SVG or HTML asset opened on its own
// runs in a sandbox with nothing allowed.
const assetCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; sandbox"

func secureHeaders(h http.Header) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
}

// ServeHTTP applies the request rules, in this order: Host, method, token;
// then the route (paths are checked by each handler).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secureHeaders(w.Header())
	if !s.hosts[strings.ToLower(r.Host)] {
		plainError(w, http.StatusMisdirectedRequest, "refused: unexpected Host header (the viewer answers only its own loopback address)")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		plainError(w, http.StatusMethodNotAllowed, "refused: the viewer is read-only (GET and HEAD only)")
		return
	}
	if q := r.URL.Query(); q.Has("token") {
		if !s.validToken(q.Get("token")) {
			plainError(w, http.StatusUnauthorized, "refused: wrong token (open the URL git echoes serve printed)")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: s.cfg.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		// Drop the token from the address bar and history.
		q.Del("token")
		http.Redirect(w, r, localTarget(r.URL.EscapedPath(), q.Encode()), http.StatusSeeOther)
		return
	}
	c, err := r.Cookie(s.cookie)
	if err != nil || !s.validToken(c.Value) {
		plainError(w, http.StatusUnauthorized, "refused: missing token (open the URL git echoes serve printed)")
		return
	}
	s.mux.ServeHTTP(w, r)
}

// localTarget is a redirect target that stays on this origin: a path that
// starts with one slash ("//host" and "/\host" would leave it), else "/".
func localTarget(path, query string) string {
	if !strings.HasPrefix(path, "/") || strings.HasPrefix(path, "//") || strings.HasPrefix(path, "/\\") {
		path = "/"
	}
	if query != "" {
		path += "?" + query
	}
	return path
}

func (s *Server) validToken(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.cfg.Token)) == 1
}

func plainError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}
