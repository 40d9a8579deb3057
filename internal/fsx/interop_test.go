package fsx

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/pytext"
)

// pythonLock is the reference engine's lock algorithm (echoes-conformance §6), transcribed.
// Usage: python3 -c pythonLock <lock> <wait-seconds>. It prints "held <token>"
// or "busy", and when held, releases after a line arrives on stdin. Release
// reads the file as text, closes it, then unlinks (echoes-conformance §6 "Release"): unlinking
// inside the `with` would fail on Windows, where Python's open() does not
// share delete access.
const pythonLock = `
import os, sys, time, secrets, errno
lock, wait = sys.argv[1], float(sys.argv[2])
os.makedirs(os.path.dirname(lock), exist_ok=True)
token = f"{os.getpid()}-{secrets.token_hex(8)}"
deadline = time.monotonic() + wait
while True:
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        try:
            stale = time.time() - os.stat(lock).st_mtime > 60.0
        except OSError:
            stale = False
        if stale:
            try:
                os.unlink(lock)
            except FileNotFoundError:
                pass
            continue
        if time.monotonic() >= deadline:
            print("busy", flush=True)
            sys.exit(0)
        time.sleep(0.05)
        continue
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(token + "\n")
    break
print("held " + token, flush=True)
sys.stdin.readline()
try:
    with open(lock, encoding="utf-8") as f:
        content = f.read()
    if content.strip() == token:
        os.unlink(lock)
except FileNotFoundError:
    pass
print("released", flush=True)
`

type refLocker struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

// reference is one implementation of the reference algorithm: the Python
// transcription, or referenceLockMain in a re-executed test binary.
type reference struct {
	name    string
	command func(lock string, wait float64) *exec.Cmd
}

// references returns the implementations to test against. The Go one always
// runs; python3 joins where it is installed (on Linux and macOS machines,
// not under Wine, which has no Windows Python).
func references(t *testing.T) []reference {
	refs := []reference{{"go-reference", func(lock string, wait float64) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), refLockEnv+"=1", "FSX_REF_LOCK="+lock,
			"FSX_REF_WAIT="+strconv.FormatFloat(wait, 'f', -1, 64))
		return cmd
	}}}
	for _, name := range []string{"python3", "python"} {
		py, err := exec.LookPath(name)
		if err != nil || exec.Command(py, "-c", "import secrets").Run() != nil {
			continue
		}
		return append(refs, reference{"python", func(lock string, wait float64) *exec.Cmd {
			return exec.Command(py, "-c", pythonLock, lock, strconv.FormatFloat(wait, 'f', -1, 64))
		}})
	}
	t.Log("no usable python3: testing against the Go transcription of the reference algorithm only")
	return refs
}

func startRefLocker(t *testing.T, ref reference, lock string, wait float64) (*refLocker, string) {
	t.Helper()
	cmd := ref.command(lock, wait)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &refLocker{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := p.out.ReadString('\n')
	if err != nil {
		t.Fatalf("%s locker: %v", ref.name, err)
	}
	return p, strings.TrimSpace(line)
}

func TestLockInteropWithReference(t *testing.T) {
	for _, ref := range references(t) {
		t.Run(ref.name, func(t *testing.T) { testLockInterop(t, ref) })
	}
}

func testLockInterop(t *testing.T, ref reference) {
	lock := filepath.Join(t.TempDir(), ".echoes-vault", "lock")

	// The reference holds the lock: Go waits and gives up with ErrLockBusy.
	p, line := startRefLocker(t, ref, lock, 10)
	tok, ok := strings.CutPrefix(line, "held ")
	if !ok || !tokenRE.MatchString(tok) {
		t.Fatalf("%s: %q", ref.name, line)
	}
	if _, err := AcquireLock(lock, fastBusy); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("Go acquire while the reference holds: %v", err)
	}
	// The reference releases its own lock; Go then acquires.
	if _, err := io.WriteString(p.stdin, "\n"); err != nil {
		t.Fatal(err)
	}
	if line, _ := p.out.ReadString('\n'); strings.TrimSpace(line) != "released" {
		t.Fatalf("%s: %q", ref.name, line)
	}
	l, err := AcquireLock(lock, fastBusy)
	if err != nil {
		t.Fatal(err)
	}

	// Go holds: the reference times out.
	if _, line := startRefLocker(t, ref, lock, 0.2); line != "busy" {
		t.Fatalf("reference acquire while Go holds: %q", line)
	}
	// Go's lock made stale: the reference takes it over; Go's Verify
	// notices and Go's Release leaves the reference's lock alone.
	setAge(t, lock, 61*time.Second)
	p2, line := startRefLocker(t, ref, lock, 0.2)
	tok2, ok := strings.CutPrefix(line, "held ")
	if !ok {
		t.Fatalf("the reference did not take over a stale Go lock: %q", line)
	}
	if err := l.Verify(); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("Verify after the reference's takeover: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, lock)); got != tok2+"\n" {
		t.Fatalf("lock content %q, want the reference's token", got)
	}
	// A stale reference lock is taken over by Go, and the reference's
	// release then leaves Go's lock alone.
	setAge(t, lock, 61*time.Second)
	l2, err := AcquireLock(lock, fastBusy)
	if err != nil {
		t.Fatalf("Go did not take over a stale reference lock: %v", err)
	}
	_, _ = io.WriteString(p2.stdin, "\n")
	if line, _ := p2.out.ReadString('\n'); strings.TrimSpace(line) != "released" {
		t.Fatalf("%s: %q", ref.name, line)
	}
	if err := l2.Verify(); err != nil {
		t.Fatalf("the reference's release removed Go's lock: %v", err)
	}
	if err := l2.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(lock); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("lock remains: %v", err)
	}
}

// refLockEnv selects referenceLockMain when the test binary is re-executed.
const refLockEnv = "FSX_TEST_REFERENCE_LOCK"

// referenceLockMain is pythonLock in Go, step for step, with the os
// package's plain calls, which on Windows are what Python's os.open and
// open() are (CreateFile sharing read and write, not delete). It is what
// the interop test runs where no Python exists (Windows under Wine).
func referenceLockMain() error {
	lock := os.Getenv("FSX_REF_LOCK")
	wait, err := strconv.ParseFloat(os.Getenv("FSX_REF_WAIT"), 64)
	if err != nil {
		return err
	}
	// os.makedirs(os.path.dirname(lock), exist_ok=True)
	if err := os.MkdirAll(filepath.Dir(lock), 0o777); err != nil {
		return err
	}
	// f"{os.getpid()}-{secrets.token_hex(8)}"
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	token := strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
	deadline := time.Now().Add(time.Duration(wait * float64(time.Second))) // monotonic
	for {
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			if !errors.Is(err, fs.ErrExist) {
				return err // only FileExistsError is caught
			}
			stale := false
			if fi, err := os.Stat(lock); err == nil {
				stale = float64(time.Now().UnixNano()-fi.ModTime().UnixNano())/1e9 > 60.0 // wall clock
			}
			if stale {
				if err := os.Remove(lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				continue
			}
			if !time.Now().Before(deadline) {
				fmt.Println("busy")
				return nil
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		_, werr := f.WriteString(token + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
		break
	}
	fmt.Println("held " + token)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	content, err := os.ReadFile(lock)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case pytext.Strip(string(content)) == token:
		if err := os.Remove(lock); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	fmt.Println("released")
	return nil
}
