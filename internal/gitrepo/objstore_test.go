package gitrepo

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// storeRepo builds a repository with many versions of a few files (so
// packing makes delta chains), nested directories, and a binary file.
func storeRepo(t *testing.T) (*gitrepotest.Sandbox, string) {
	sb := gitrepotest.New(t)
	dir := sb.Init(filepath.Join(t.TempDir(), "repo"))
	rnd := gitrepotest.NewRand(7)
	var big strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&big, "line %d of a long page\n", i)
	}
	for n := 0; n < 40; n++ {
		for f := 0; f < 5; f++ {
			p := filepath.Join(dir, "d", strconv.Itoa(f%2), fmt.Sprintf("f%d.txt", f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			body := big.String() + fmt.Sprintf("version %d %d\n", n, rnd.Intn(1000))
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		bin := make([]byte, 300)
		for i := range bin {
			bin[i] = byte(rnd.Intn(256))
		}
		if err := os.WriteFile(filepath.Join(dir, "blob.bin"), bin, 0o644); err != nil {
			t.Fatal(err)
		}
		sb.Git(dir, "add", "-A")
		sb.Git(dir, "commit", "-q", "-m", fmt.Sprintf("c%d", n))
	}
	return sb, dir
}

// catAll returns every object of the repository as git cat-file --batch
// gives it: id -> type and content.
func catAll(t *testing.T, sb *gitrepotest.Sandbox, dir string) map[string]struct {
	typ  string
	data []byte
} {
	out := sb.Git(dir, "cat-file", "--batch-all-objects", "--batch")
	r := bufio.NewReader(strings.NewReader(out))
	all := map[string]struct {
		typ  string
		data []byte
	}{}
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(line)
		n, _ := strconv.Atoi(f[2])
		data := make([]byte, n+1)
		if _, err := io.ReadFull(r, data); err != nil {
			t.Fatal(err)
		}
		all[f[0]] = struct {
			typ  string
			data []byte
		}{f[1], data[:n]}
	}
	if len(all) == 0 {
		t.Fatal("no objects")
	}
	return all
}

// checkStore reads every object with the fast reader: each must be found
// (when wantAll) and identical to git's bytes; it returns how many were
// read.
func checkStore(t *testing.T, sb *gitrepotest.Sandbox, dir string, wantAll bool) int {
	t.Helper()
	all := catAll(t, sb, dir)
	s := openObjStore(filepath.Join(dir, ".git", "objects"))
	defer s.Close()
	read := 0
	for id, want := range all {
		raw, _ := hex.DecodeString(id)
		typ, data, err := s.read(raw)
		if err != nil {
			if wantAll || !errors.Is(err, errNotHere) {
				t.Fatalf("%s: %v", id, err)
			}
			continue
		}
		if typ != want.typ || !bytes.Equal(data, want.data) {
			t.Fatalf("%s: got %s of %d bytes, git says %s of %d bytes", id, typ, len(data), want.typ, len(want.data))
		}
		read++
	}
	if _, _, err := s.read(make([]byte, 20)); !errors.Is(err, errNotHere) {
		t.Fatalf("missing object: %v", err)
	}
	return read
}

func packStats(t *testing.T, sb *gitrepotest.Sandbox, dir string) string {
	idx, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if len(idx) == 0 {
		t.Fatal("no pack")
	}
	return sb.Git(dir, "verify-pack", "-v", idx[0])
}

func TestObjStoreLoose(t *testing.T) {
	sb, dir := storeRepo(t)
	if n := checkStore(t, sb, dir, true); n == 0 {
		t.Fatal("nothing read")
	}
}

func TestObjStoreOfsDelta(t *testing.T) {
	sb, dir := storeRepo(t)
	sb.Git(dir, "repack", "-a", "-d", "-f", "--depth=50", "--window=50")
	if st := packStats(t, sb, dir); !strings.Contains(st, "chain length = 2") {
		t.Fatalf("the pack has no delta chains:\n%s", st)
	}
	checkStore(t, sb, dir, true)
}

func TestObjStoreRefDelta(t *testing.T) {
	sb, dir := storeRepo(t)
	sb.Git(dir, "-c", "repack.useDeltaBaseOffset=false", "repack", "-a", "-d", "-f")
	if st := packStats(t, sb, dir); !strings.Contains(st, "chain length = 2") {
		t.Fatalf("the pack has no delta chains:\n%s", st)
	}
	checkStore(t, sb, dir, true)
}

// TestObjStoreLargeOffsets: an index using the 8-byte offset table, which
// git writes for offsets past 2 GiB, or past the limit given to
// git index-pack --index-version=2,<offset>.
func TestObjStoreLargeOffsets(t *testing.T) {
	sb, dir := storeRepo(t)
	sb.Git(dir, "repack", "-a", "-d", "-f")
	idx, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	pack := strings.TrimSuffix(idx[0], ".idx") + ".pack"
	// Every offset above 0x20 goes to the 8-byte table.
	sb.Git(dir, "index-pack", "--index-version=2,32", "-o", idx[0]+".new", pack)
	if err := os.Rename(idx[0]+".new", idx[0]); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(idx[0])
	if err != nil {
		t.Fatal(err)
	}
	n, err := checkIdx(raw)
	if err != nil || len(raw) == 8+256*4+n*28+40 {
		t.Fatalf("no 8-byte offsets in the index (%v)", err)
	}
	checkStore(t, sb, dir, true)
}

// TestObjStoreDamaged: a pack with bytes overwritten must never yield
// wrong content: every object is either git's bytes or not found (then
// go-git is asked).
func TestObjStoreDamaged(t *testing.T) {
	sb, dir := storeRepo(t)
	sb.Git(dir, "repack", "-a", "-d", "-f")
	all := catAll(t, sb, dir)
	packs, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.pack"))
	data, err := os.ReadFile(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	rnd := gitrepotest.NewRand(3)
	for round := 0; round < 30; round++ {
		bad := bytes.Clone(data)
		for k := 0; k < 1+round%4; k++ {
			i := 12 + rnd.Intn(len(bad)-32)
			bad[i] ^= byte(1 + rnd.Intn(255))
		}
		if err := os.WriteFile(packs[0], bad, 0o644); err != nil {
			t.Fatal(err)
		}
		s := openObjStore(filepath.Join(dir, ".git", "objects"))
		for id, want := range all {
			raw, _ := hex.DecodeString(id)
			typ, got, err := s.read(raw)
			if err != nil {
				if !errors.Is(err, errNotHere) {
					t.Fatalf("%s: %v", id, err)
				}
				continue
			}
			if typ != want.typ || !bytes.Equal(got, want.data) {
				t.Fatalf("round %d: %s: wrong content from a damaged pack", round, id)
			}
		}
		s.Close()
	}
	// A pack whose trailer is not the one its index records is not used.
	bad := bytes.Clone(data)
	bad[len(bad)-1] ^= 1
	if err := os.WriteFile(packs[0], bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if s := openObjStore(filepath.Join(dir, ".git", "objects")); len(s.packs) != 0 {
		t.Fatal("a pack that does not match its index was opened")
	}
	// A damaged index is not used at all.
	idx, _ := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	if err := os.WriteFile(idx[0], []byte("\377tOc\x00\x00\x00\x02short"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := openObjStore(filepath.Join(dir, ".git", "objects"))
	defer s.Close()
	if len(s.packs) != 0 {
		t.Fatal("a truncated index was opened")
	}
}

func TestApplyDelta(t *testing.T) {
	base := []byte("0123456789abcdef")
	// base size 16, result size 9: copy 4 bytes at offset 2, insert "xyz",
	// copy 2 bytes at 14.
	delta := []byte{16, 9, 0x80 | 0x01 | 0x10, 2, 4, 3, 'x', 'y', 'z', 0x80 | 0x01 | 0x10, 14, 2}
	got, err := applyDelta(base, delta)
	if err != nil || string(got) != "2345xyzef" {
		t.Fatalf("%q %v", got, err)
	}
	for _, bad := range [][]byte{
		{15, 9},                     // wrong base size
		{16, 9, 0},                  // reserved instruction
		{16, 2, 3, 'a', 'b', 'c'},   // insert beyond the result size
		{16, 4, 0x91, 14, 4},        // copy beyond the base
		{16, 5, 2, 'a', 'b'},        // result shorter than announced
		{16, 1, 0x80 | 0x01 | 0x10}, // truncated copy
	} {
		if _, err := applyDelta(base, bad); err == nil {
			t.Errorf("delta %v accepted", bad)
		}
	}
}

// TestObjStoreDeepChains: the shape of a real project's pack (git gc
// --aggressive, or a server's repack): long delta chains found over a
// wide window. Every object is read twice, once through the mapped pack
// and once through windows so small (4 KiB) that most zlib streams and
// delta headers cross a window boundary (the path taken where a pack
// cannot be mapped), and each must be git's bytes.
func TestObjStoreDeepChains(t *testing.T) {
	sb := gitrepotest.New(t)
	dir := sb.Init(filepath.Join(t.TempDir(), "repo"))
	// 300 commits, each editing one of two long files and touching a
	// directory of a wide root tree: long chains of blobs and trees.
	var stream bytes.Buffer
	for n := 0; n < 300; n++ {
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter T <t@example.com> %d +0000\ndata 2\nc\n", 1600000000+n)
		var body strings.Builder
		for i := 0; i < 400; i++ {
			fmt.Fprintf(&body, "line %d of file %d, edited in commit %d\n", i, n%2, n-n%7*(i%3))
		}
		fmt.Fprintf(&stream, "M 100644 inline f%d.txt\ndata %d\n%s\n", n%2, body.Len(), body.String())
		v := "v" + strconv.Itoa(n)
		fmt.Fprintf(&stream, "M 100644 inline d%02d/x.txt\ndata %d\n%s\n", n%40, len(v), v)
	}
	if _, err := sb.Run(dir, nil, stream.Bytes(), "fast-import", "--quiet"); err != nil {
		t.Fatal(err)
	}
	sb.Git(dir, "repack", "-a", "-d", "-f", "--depth=50", "--window=250")
	st := packStats(t, sb, dir)
	if !strings.Contains(st, "chain length = 40") {
		t.Fatalf("the pack has no deep delta chains:\n%s", st)
	}
	checkStore(t, sb, dir, true)

	all := catAll(t, sb, dir)
	defer func(w int64) { windowSize = w }(windowSize)
	windowSize = 4096
	s := openObjStore(filepath.Join(dir, ".git", "objects"))
	defer s.Close()
	for _, p := range s.packs {
		if p.mapped != nil {
			if err := unmapPack(p.mapped); err != nil {
				t.Fatal(err)
			}
			p.mapped = nil
		}
	}
	for id, want := range all {
		raw, _ := hex.DecodeString(id)
		typ, data, err := s.read(raw)
		if err != nil || typ != want.typ || !bytes.Equal(data, want.data) {
			t.Fatalf("%s through windows: %s of %d bytes, %v; git says %s of %d bytes", id, typ, len(data), err, want.typ, len(want.data))
		}
	}
}

// TestObjStoreInflater: every zlib stream of a pack of deep delta chains
// (whole objects and deltas) is decoded by the in-memory inflater
// (inflate.go), not left to the fallback, into the bytes
// klauspost/compress's inflater gives; and every commit's prefix, of
// every length up to its size, is git's bytes.
func TestObjStoreInflater(t *testing.T) {
	sb := gitrepotest.New(t)
	dir := sb.Init(filepath.Join(t.TempDir(), "repo"))
	var stream bytes.Buffer
	for n := 0; n < 120; n++ {
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter T <t@example.com> %d +0000\ndata %d\n%s\n", 1600000000+n, 20+n, strings.Repeat("m", 20+n))
		var body strings.Builder
		for i := 0; i < 300; i++ {
			fmt.Fprintf(&body, "line %d, edited in commit %d\n", i, n-n%5*(i%3))
		}
		fmt.Fprintf(&stream, "M 100644 inline f%d.txt\ndata %d\n%s\n", n%2, body.Len(), body.String())
		fmt.Fprintf(&stream, "M 100644 inline d%02d/x.txt\ndata 3\nv%02d\n", n%30, n%100)
	}
	if _, err := sb.Run(dir, nil, stream.Bytes(), "fast-import", "--quiet"); err != nil {
		t.Fatal(err)
	}
	sb.Git(dir, "repack", "-a", "-d", "-f", "--depth=50", "--window=250")
	s := openObjStore(filepath.Join(dir, ".git", "objects"))
	defer s.Close()
	streams := 0
	for _, line := range strings.Split(packStats(t, sb, dir), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || len(f[0]) != 40 {
			continue
		}
		off, _ := strconv.ParseInt(f[4], 10, 64)
		typ, size, hdr, err := s.header(0, off)
		if err != nil {
			t.Fatalf("%s: %v", f[0], err)
		}
		at := off + int64(hdr)
		switch typ {
		case objOfsDelta:
			_, n, err := s.ofsBase(0, off, at)
			if err != nil {
				t.Fatal(err)
			}
			at += int64(n)
		case objRefDelta:
			at += 20
		}
		w, err := s.window(0, at)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]byte, size)
		if err := s.inf.inflate(w, got, true); err != nil {
			t.Fatalf("%s (type %d, %d bytes): not decoded in memory: %v", f[0], typ, size, err)
		}
		s.br.Reset(w)
		want, err := s.inflateFrom(&s.br, size, nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: in-memory inflater and klauspost/compress differ (%v)", f[0], err)
		}
		streams++
	}
	if streams < 300 {
		t.Fatalf("only %d streams", streams)
	}
	prefixes := 0
	for id, obj := range catAll(t, sb, dir) {
		if obj.typ != "commit" {
			continue
		}
		raw, _ := hex.DecodeString(id)
		if pi, off, _ := s.locate(raw); func() bool { typ, _, _, _ := s.header(pi, off); return typ != objCommit }() {
			if _, ok := s.commitPrefix(raw, 10); ok {
				t.Fatalf("%s: a commit stored as a delta read as a prefix", id)
			}
			continue // stored as a delta: read whole, never as a prefix
		}
		prefixes++
		for n := 0; n <= len(obj.data); n++ {
			data, ok := s.commitPrefix(raw, n)
			if want := obj.data[:min(n, headerEnd(obj.data))]; !ok || !bytes.Equal(data, want) {
				t.Fatalf("%s: prefix %d: %q, %v; git says %q", id, n, data, ok, want)
			}
		}
	}
	if prefixes < 50 {
		t.Fatalf("only %d commits stored whole", prefixes)
	}
}

// headerEnd is where a header read of commit data ends: after the first
// line that starts "committer ", else at the end.
func headerEnd(data []byte) int {
	for line := 0; line < len(data); {
		nl := bytes.IndexByte(data[line:], '\n')
		if nl < 0 {
			break
		}
		if bytes.HasPrefix(data[line:], []byte("committer ")) {
			return line + nl + 1
		}
		line += nl + 1
	}
	return len(data)
}

// TestCheckIdxCounts: the index's object count (the last fan-out entry)
// against its length, at the edges of what 32 and 64 bits hold. A count
// past 2^31 or an index shorter than its count needs is refused, never
// wrapped into a small or negative size.
func TestCheckIdxCounts(t *testing.T) {
	idx := func(count uint32, entries int) []byte {
		b := []byte("\377tOc\x00\x00\x00\x02")
		for i := 0; i < 256; i++ {
			b = binary.BigEndian.AppendUint32(b, count)
		}
		return append(b, make([]byte, entries*28+40)...)
	}
	for _, c := range []struct {
		name    string
		b       []byte
		want    int
		wantErr bool
	}{
		{"empty", idx(0, 0), 0, false},
		{"two objects", idx(2, 2), 2, false},
		{"one short", idx(2, 1), 0, true},
		{"2^31 claimed", idx(1<<31, 1), 0, true},
		{"2^31+1 claimed", idx(1<<31+1, 1), 0, true},
		{"2^32-1 claimed", idx(1<<32-1, 1), 0, true},
		{"stray bytes", append(idx(2, 2), 1, 2, 3), 0, true},
	} {
		n, err := checkIdx(c.b)
		if (err != nil) != c.wantErr || (err == nil && n != c.want) {
			t.Errorf("%s: got %d, %v; want %d, error %v", c.name, n, err, c.want, c.wantErr)
		}
	}
}
