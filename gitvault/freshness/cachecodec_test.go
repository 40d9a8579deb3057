package freshness

import (
	"reflect"
	"testing"
	"time"
)

func sampleCache() cacheFile {
	at := time.Unix(1700000123, 456).UTC()
	return cacheFile{Version: cacheVersion, Target: "0123456789abcdef0123456789abcdef01234567", Reports: map[string]Report{
		"k1": {Path: "EchoesVault/pages/a.md", Anchor: Anchor{Commit: "abc", Date: at, Verified: true}, Verdict: Drifted,
			Citations: []Result{{Citation: Citation{Path: "src/a.go", Start: 2, End: 4, From: "sources"}, Verdict: Drifted,
				NewPath: "src/b.go", NewStart: 3, NewEnd: 5, Count: 1, Note: "n",
				Commits: []CommitRef{{Hash: "h", Short: "s", Subject: "subj é", Author: "A <a@b>", Date: at, Added: 2, Removed: -1}}}},
			Invalid: []Invalid{{Entry: "/abs", Reason: "absolute", Line: 7}}},
		"k2": {Path: "m.md", Memory: true, Anchor: Anchor{WorkTree: true, Shallow: true}, Verdict: Uncited},
	}}
}

// TestCacheCodecRoundTrip: what is written is what is read, field by
// field (times as instants, in UTC; the zero time stays zero).
func TestCacheCodecRoundTrip(t *testing.T) {
	cf := sampleCache()
	got, err := decodeCache(encodeCache(&cf))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, cf) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, cf)
	}
	if !got.Reports["k2"].Anchor.Date.IsZero() {
		t.Fatal("the zero time came back as another time")
	}
}

// TestCacheCodecRefuses: truncated, extended, foreign and other-version
// files are refused, never half read.
func TestCacheCodecRefuses(t *testing.T) {
	cf := sampleCache()
	good := encodeCache(&cf)
	for i := 0; i < len(good); i++ {
		if _, err := decodeCache(good[:i]); err == nil {
			t.Fatalf("a file truncated to %d of %d bytes was read", i, len(good))
		}
	}
	if _, err := decodeCache(append(append([]byte(nil), good...), 0)); err == nil {
		t.Fatal("trailing bytes were accepted")
	}
	other := append([]byte(nil), good...)
	other[len(cacheMagic)] = cacheVersion + 1
	if _, err := decodeCache(other); err == nil {
		t.Fatal("another version was read")
	}
	if _, err := decodeCache([]byte(`{"version":1}`)); err == nil {
		t.Fatal("the old JSON file was read")
	}
}

// FuzzCacheDecode: arbitrary bytes never panic, and whatever decodes
// encodes back to the same bytes.
func FuzzCacheDecode(f *testing.F) {
	cf := sampleCache()
	f.Add(encodeCache(&cf))
	f.Add(append(append([]byte(nil), cacheMagic...), 2, 0, 0xff, 0xff, 0xff, 0xff, 0x0f))
	f.Fuzz(func(t *testing.T, b []byte) {
		cf, err := decodeCache(b)
		if err != nil {
			return
		}
		again, err := decodeCache(encodeCache(&cf))
		if err != nil || !reflect.DeepEqual(again, cf) {
			t.Fatalf("re-encoded file differs: %v", err)
		}
	})
}
