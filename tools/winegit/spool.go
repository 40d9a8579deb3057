package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The spool protocol. One call is three files in the spool directory:
//
//	ID.req    the request, written by the client;
//	ID.ready  an empty file the client creates once ID.req is complete;
//	ID.resp   the response, written by the server under a temporary name
//	          and renamed (a Linux rename, atomic); the client reads and
//	          removes it.
//
// Everything the client does is idempotent, so it can retry any step:
// under a loaded Wine, file calls fail now and then with errors that mean
// nothing about the file (seen: MoveFileEx answering "Not enough memory."
// for a rename it had in fact done, so a retried rename-into-place sent
// the request twice and two gits raced for index.lock). The client
// therefore never renames: it rewrites ID.req with the same bytes and
// re-creates ID.ready, and the server runs each ID once, however often it
// sees it ready.
//
// ID is the client's process id and a clock reading, unique among the
// processes alive at once. Both sides poll: a git call costs milliseconds,
// a poll of a directory of a few entries microseconds.
const (
	reqExt   = ".req"
	readyExt = ".ready"
	respExt  = ".resp"
	tmpExt   = ".tmp"
)

// callTimeout bounds one call, so a client whose server died with its spool
// still in place fails instead of hanging a test run.
const callTimeout = 30 * time.Minute

// call leaves req in spool and waits for its response.
func call(spool string, req *request) (*response, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	id := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	base := filepath.Join(spool, id)
	if err := retrying(func() error { return os.WriteFile(base+reqExt, data, 0o600) }); err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	if err := retrying(func() error { return os.WriteFile(base+readyExt, nil, 0o600) }); err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	deadline := time.Now().Add(callTimeout)
	wait := 100 * time.Microsecond
	for i := 0; ; i++ {
		var data []byte
		err := retrying(func() error {
			var err error
			data, err = os.ReadFile(base + respExt)
			return err
		})
		if err == nil {
			// A response left behind goes with the spool.
			_ = os.Remove(base + respExt)
			var resp response
			if err := json.Unmarshal(data, &resp); err != nil {
				return nil, fmt.Errorf("receive: %w", err)
			}
			return &resp, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("receive: %w", err)
		}
		// The spool goes when run-test.sh ends, and with it the server.
		if i%64 == 63 {
			if _, err := os.Stat(spool); err != nil {
				return nil, fmt.Errorf("spool %s: %w (is scripts/wine/run-test.sh still running?)", spool, err)
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("no answer from the server in %s", callTimeout)
			}
		}
		time.Sleep(wait)
		if wait < 5*time.Millisecond {
			wait *= 2
		}
	}
}

// retrying runs op until it succeeds, fails with "does not exist", or has
// failed for transientFor (see the protocol's comment).
func retrying(op func() error) error {
	deadline := time.Now().Add(transientFor)
	for {
		err := op()
		if err == nil || errors.Is(err, fs.ErrNotExist) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// transientFor bounds the retries of one file operation.
const transientFor = 10 * time.Second

// serve runs git once for every request made ready in spool, until the
// spool can no longer be read.
func serve(spool, git string) error {
	taken := map[string]bool{}
	for {
		entries, err := os.ReadDir(spool)
		if err != nil {
			return err
		}
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), readyExt)
			if !ok {
				continue
			}
			base := filepath.Join(spool, id)
			// A client that retried creating ID.ready after it was taken
			// makes it appear again: it is not a second call.
			_ = os.Remove(base + readyExt)
			if taken[id] {
				continue
			}
			taken[id] = true
			go handle(base, git)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// handle answers the request in base+reqExt.
func handle(base, git string) {
	var resp *response
	data, err := os.ReadFile(base + reqExt)
	if err == nil {
		_ = os.Remove(base + reqExt)
		var req request
		if err = json.Unmarshal(data, &req); err == nil {
			resp = run(git, &req)
		}
	}
	if err != nil {
		resp = &response{Code: 128, Error: "server: " + err.Error()}
	}
	if err := writeAtomic(base+respExt, resp); err != nil {
		fmt.Fprintln(os.Stderr, "winegit serve:", err)
	}
}

// writeAtomic writes v as JSON under a temporary name and renames it to
// name (the server's side: Linux).
func writeAtomic(name string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.WriteFile(name+tmpExt, data, 0o600); err != nil {
		return err
	}
	if err := os.Rename(name+tmpExt, name); err != nil {
		_ = os.Remove(name + tmpExt)
		return err
	}
	return nil
}
