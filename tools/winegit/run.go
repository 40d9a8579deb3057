package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
)

// run executes git for req with the server's environment overlaid by the
// client's Git variables.
func run(git string, req *request) *response {
	cmd := exec.Command(git, req.Args...)
	cmd.Dir = req.Dir
	cmd.Env = append(os.Environ(), req.Env...)
	cmd.Stdin = bytes.NewReader(req.Stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	resp := &response{}
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		resp.Code = ee.ExitCode()
	default:
		resp.Code, resp.Error = 128, err.Error()
	}
	resp.Stdout, resp.Stderr = out.Bytes(), errb.Bytes()
	return resp
}
