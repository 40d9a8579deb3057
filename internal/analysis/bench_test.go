package analysis

import (
	"strings"
	"testing"
)

// BenchmarkAnalyze: a 4 KB page of ordinary prose with identifiers.
func BenchmarkAnalyze(b *testing.B) {
	line := "The retryPolicy retries failed webhook deliveries with exponential back-off; max_retries is 5. "
	text := strings.Repeat(line, 4096/len(line))
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		Analyze(text)
	}
}
