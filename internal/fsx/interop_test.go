package fsx

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pythonLock is the reference engine's lock algorithm (§6), transcribed.
// Usage: python3 -c pythonLock <lock> <wait-seconds>. It prints "held <token>"
// or "busy", and when held, releases after a line arrives on stdin.
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
        if f.read().strip() == token:
            os.unlink(lock)
except FileNotFoundError:
    pass
print("released", flush=True)
`

type pyLocker struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startPyLocker(t *testing.T, py, lock string, wait float64) (*pyLocker, string) {
	t.Helper()
	cmd := exec.Command(py, "-c", pythonLock, lock, strconv.FormatFloat(wait, 'f', -1, 64))
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
	p := &pyLocker{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := p.out.ReadString('\n')
	if err != nil {
		t.Fatalf("python locker: %v", err)
	}
	return p, strings.TrimSpace(line)
}

func TestLockInteropWithPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	if exec.Command(py, "-c", "import secrets").Run() != nil {
		t.Skip("python3 unusable")
	}
	lock := filepath.Join(t.TempDir(), ".echoes-vault", "lock")

	// Python holds the lock: Go waits and gives up with ErrLockBusy.
	p, line := startPyLocker(t, py, lock, 10)
	tok, ok := strings.CutPrefix(line, "held ")
	if !ok || !tokenRE.MatchString(tok) {
		t.Fatalf("python: %q", line)
	}
	if _, err := AcquireLock(lock, fastBusy); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("Go acquire while Python holds: %v", err)
	}
	// Python releases its own lock; Go then acquires.
	if _, err := io.WriteString(p.stdin, "\n"); err != nil {
		t.Fatal(err)
	}
	if line, _ := p.out.ReadString('\n'); strings.TrimSpace(line) != "released" {
		t.Fatalf("python: %q", line)
	}
	l, err := AcquireLock(lock, fastBusy)
	if err != nil {
		t.Fatal(err)
	}

	// Go holds: Python times out.
	if _, line := startPyLocker(t, py, lock, 0.2); line != "busy" {
		t.Fatalf("python acquire while Go holds: %q", line)
	}
	// Go's lock made stale: Python takes it over; Go's Verify notices and
	// Go's Release leaves Python's lock alone.
	setAge(t, lock, 61*time.Second)
	p2, line := startPyLocker(t, py, lock, 0.2)
	tok2, ok := strings.CutPrefix(line, "held ")
	if !ok {
		t.Fatalf("python did not take over a stale Go lock: %q", line)
	}
	if err := l.Verify(); !errors.Is(err, ErrLockBusy) {
		t.Fatalf("Verify after Python takeover: %v", err)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if got := string(readFile(t, lock)); got != tok2+"\n" {
		t.Fatalf("lock content %q, want Python's token", got)
	}
	_, _ = io.WriteString(p2.stdin, "\n")
	if line, _ := p2.out.ReadString('\n'); strings.TrimSpace(line) != "released" {
		t.Fatalf("python: %q", line)
	}
	if _, err := os.Lstat(lock); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("lock remains: %v", err)
	}
}
