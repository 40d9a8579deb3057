// Command winegit lets Windows test binaries running under Wine use the
// machine's real Linux git as their referee.
//
// Wine cannot hand a Windows program a process handle or pipes for a Linux
// executable, and Debian ships no Git for Windows. So the bridge has two
// halves built from this one file:
//
//   - built for windows, it is git.exe: it turns its working directory and
//     every argument that names an existing Windows path into the Unix path
//     Wine maps it to (kernel32!wine_get_unix_file_name), collects the GIT_*
//     and HOME environment and its standard input, and sends them over
//     loopback TCP to the server named by ECHOES_WINEGIT_ADDR;
//   - built for linux and started with "serve", it runs /usr/bin/git with
//     that request and sends back standard output, standard error and the
//     exit status.
//
// It is test infrastructure only (scripts/wine/run-test.sh starts the server
// and puts git.exe on the Windows PATH); nothing of it ships in a release.
// Output is passed through unchanged: paths git prints stay Unix paths, so
// tests compare relative paths, as they do.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
)

// request is one git invocation.
type request struct {
	Args  []string `json:"args"`
	Dir   string   `json:"dir"`
	Env   []string `json:"env"`
	Stdin []byte   `json:"stdin"`
}

// response is its outcome.
type response struct {
	Stdout []byte `json:"stdout"`
	Stderr []byte `json:"stderr"`
	Code   int    `json:"code"`
	Error  string `json:"error,omitempty"`
}

const addrEnv = "ECHOES_WINEGIT_ADDR"

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "serve" {
		// serve returns only when it can no longer listen or accept.
		fmt.Fprintln(os.Stderr, "winegit serve:", serve(os.Args[2:]))
		os.Exit(1)
	}
	os.Exit(client(os.Args[1:]))
}

// client forwards one invocation to the server and replays its outcome.
func client(args []string) int {
	addr := os.Getenv(addrEnv)
	if addr == "" {
		fmt.Fprintln(os.Stderr, "git (winegit): "+addrEnv+" is not set; start scripts/wine/run-test.sh")
		return 128
	}
	req, err := buildRequest(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "git (winegit):", err)
		return 128
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "git (winegit): connect:", err)
		return 128
	}
	defer conn.Close()
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		fmt.Fprintln(os.Stderr, "git (winegit): send:", err)
		return 128
	}
	var resp response
	if err := json.NewDecoder(conn).Decode(&resp); err != nil {
		fmt.Fprintln(os.Stderr, "git (winegit): receive:", err)
		return 128
	}
	os.Stdout.Write(resp.Stdout)
	os.Stderr.Write(resp.Stderr)
	if resp.Error != "" {
		fmt.Fprintln(os.Stderr, "git (winegit):", resp.Error)
	}
	return resp.Code
}

func buildRequest(args []string) (*request, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	dir, ok := unixPath(wd)
	if !ok {
		return nil, fmt.Errorf("working directory %s has no Unix path", wd)
	}
	req := &request{Dir: dir}
	for _, a := range args {
		req.Args = append(req.Args, translateArg(a))
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		uk := strings.ToUpper(k)
		if !strings.HasPrefix(uk, "GIT_") && uk != "HOME" && uk != "TZ" && !strings.HasPrefix(uk, "LC_") && uk != "LANG" {
			continue
		}
		if uk == "HOME" {
			k = "HOME"
		}
		if p, ok := unixPathIfAbs(v); ok {
			v = p
		}
		req.Env = append(req.Env, k+"="+v)
	}
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice == 0 {
		req.Stdin, _ = io.ReadAll(os.Stdin)
	}
	return req, nil
}

// translateArg rewrites an argument that is, or ends in (--opt=VALUE), an
// absolute Windows path, and a relative path spelled with backslashes.
func translateArg(a string) string {
	if p, ok := unixPathIfAbs(a); ok {
		return p
	}
	if i := strings.IndexByte(a, '='); i > 0 && strings.HasPrefix(a, "-") {
		if p, ok := unixPathIfAbs(a[i+1:]); ok {
			return a[:i+1] + p
		}
	}
	if strings.Contains(a, `\`) && !strings.ContainsAny(a, " \n") {
		if _, err := os.Lstat(a); err == nil {
			return strings.ReplaceAll(a, `\`, "/")
		}
	}
	return a
}

// unixPathIfAbs translates v when it looks like an absolute drive path.
func unixPathIfAbs(v string) (string, bool) {
	if len(v) < 3 || v[1] != ':' || (v[2] != '\\' && v[2] != '/') {
		return "", false
	}
	c := v[0] | 0x20
	if c < 'a' || c > 'z' {
		return "", false
	}
	return unixPath(v)
}

// serve accepts requests on 127.0.0.1 and runs git for each. It prints the
// address it listens on, then serves until it is killed.
func serve(args []string) error {
	git := "/usr/bin/git"
	if len(args) > 0 {
		git = args[0]
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(ln.Addr().String())
	os.Stdout.Sync()
	for {
		conn, err := ln.Accept()
		if err != nil {
			return err
		}
		go handle(conn, git)
	}
}

func handle(conn net.Conn, git string) {
	defer conn.Close()
	var req request
	if err := json.NewDecoder(conn).Decode(&req); err != nil {
		return
	}
	resp := run(git, &req)
	_ = json.NewEncoder(conn).Encode(resp)
}
