// Command winegit lets Windows test binaries running under Wine use the
// machine's real Linux git as their referee.
//
// Wine cannot hand a Windows program a process handle or pipes for a Linux
// executable, and Debian ships no Git for Windows. So the bridge has two
// halves built from this one package:
//
//   - built for windows, it is git.exe: it turns its working directory and
//     every argument that names an existing Windows path into the Unix path
//     Wine maps it to (kernel32!wine_get_unix_file_name), collects the GIT_*
//     and HOME environment and its standard input, and leaves them as a
//     request file in the spool directory named by ECHOES_WINEGIT_SPOOL;
//   - built for linux and started with "serve SPOOL", it runs /usr/bin/git
//     for each request and leaves standard output, standard error and the
//     exit status as the matching response file (spool.go).
//
// The transport is files, not a socket, so git.exe imports no package
// that needs Winsock: a Go program that imports net loads ws2_32.dll at
// start-up, and under a loaded Wine that load fails now and then ("Failed
// to load ws2_32.dll: DLL initialization failed"), a panic before main that
// failed a CI run in a test that had nothing to do with it. git.exe is the
// program the Windows tests start most often.
//
// It is test infrastructure only (scripts/wine/run-test.sh starts the server
// and puts git.exe on the Windows PATH); nothing of it ships in a release.
// Output is passed through unchanged: paths git prints stay Unix paths, so
// tests compare relative paths, as they do.
package main

import (
	"fmt"
	"io"
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

// spoolEnv names the spool directory, as the client spells it (a Windows
// path under Wine); internal/testenv passes it through to subprocesses.
const spoolEnv = "ECHOES_WINEGIT_SPOOL"

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "serve" {
		if len(os.Args) < 3 {
			fmt.Fprintln(os.Stderr, "usage: winegit serve SPOOL [GIT]")
			os.Exit(2)
		}
		git := "/usr/bin/git"
		if len(os.Args) > 3 {
			git = os.Args[3]
		}
		// serve returns only when the spool can no longer be read.
		fmt.Fprintln(os.Stderr, "winegit serve:", serve(os.Args[2], git))
		os.Exit(1)
	}
	os.Exit(client(os.Args[1:]))
}

// client forwards one invocation to the server and replays its outcome.
func client(args []string) int {
	spool := os.Getenv(spoolEnv)
	if spool == "" {
		fmt.Fprintln(os.Stderr, "git (winegit): "+spoolEnv+" is not set; start scripts/wine/run-test.sh")
		return 128
	}
	req, err := buildRequest(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "git (winegit):", err)
		return 128
	}
	resp, err := call(spool, req)
	if err != nil {
		fmt.Fprintln(os.Stderr, "git (winegit):", err)
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
