package fsx

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// CopyTo copies the rest of the file from its offset, whatever the
// destination: a buffer, a regular file and a pipe (sendfile on Linux
// for both), a file opened to append (which sendfile refuses).
func TestCopyTo(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	data := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16)
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	const skip = 100
	open := func() *File {
		t.Helper()
		f, err := OpenNoFollow(src)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		if _, err := io.ReadFull(&f, make([]byte, skip)); err != nil {
			t.Fatal(err)
		}
		return &f
	}
	check := func(name string, n int64, err error, got []byte) {
		t.Helper()
		if err != nil || n != int64(len(data)-skip) || !bytes.Equal(got, data[skip:]) {
			t.Errorf("%s: %d bytes, %v; the copy is the rest of the file: %v", name, n, err, bytes.Equal(got, data[skip:]))
		}
	}

	var buf bytes.Buffer
	n, err := open().CopyTo(&buf, make([]byte, 4096))
	check("buffer", n, err, buf.Bytes())

	for _, flags := range []int{os.O_WRONLY | os.O_CREATE | os.O_TRUNC, os.O_WRONLY | os.O_CREATE | os.O_APPEND} {
		dst := filepath.Join(dir, "dst")
		os.Remove(dst)
		out, err := os.OpenFile(dst, flags, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		n, err := open().CopyTo(out, make([]byte, 4096))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		got, rerr := os.ReadFile(dst)
		if rerr != nil {
			t.Fatal(rerr)
		}
		check("file", n, err, got)
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []byte)
	go func() {
		got, _ := io.ReadAll(r)
		r.Close()
		done <- got
	}()
	n, err = open().CopyTo(w, make([]byte, 4096))
	w.Close()
	check("pipe", n, err, <-done)
}
