package fsx

import (
	"bytes"
	"path/filepath"
	"testing"
)

func BenchmarkWriteFileAtomic(b *testing.B) {
	p := filepath.Join(b.TempDir(), "index.md")
	data := bytes.Repeat([]byte("- [[page]] summary line\r\n"), 200)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if err := WriteFileAtomic(p, data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLockAcquireRelease(b *testing.B) {
	p := filepath.Join(b.TempDir(), ".echoes-vault", "lock")
	opt := DefaultLockOptions()
	for b.Loop() {
		l, err := AcquireLock(p, opt)
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Release(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolvePath(b *testing.B) {
	root := b.TempDir()
	p := filepath.Join(root, "EchoesVault", "pages", "missing.md")
	for b.Loop() {
		if _, err := ResolvePath(p); err != nil {
			b.Fatal(err)
		}
	}
}
