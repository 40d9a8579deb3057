package fswatch_test

import (
	"testing"

	"github.com/git-echoes/git-echoes/internal/fswatch"
)

// BenchmarkSync is the cost of one barrier with nothing changed.
func BenchmarkSync(b *testing.B) {
	w := fswatch.New(fswatch.Options{})
	defer w.Close()
	w.Watch(b.TempDir())
	for b.Loop() {
		if _, ok := w.Sync(); !ok {
			b.Fatal(w.State())
		}
	}
}
