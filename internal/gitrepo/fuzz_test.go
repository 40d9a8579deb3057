package gitrepo

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// FuzzIgnorePattern parses arbitrary exclude files and matches arbitrary
// paths. Beyond "never panics" it checks properties that hold in git:
// directory-only patterns never match files, and a pattern escaping every
// byte of a name matches that name. (Case folding is not monotonic in git:
// "[A]" matches "A" but, with core.ignoreCase, neither "A" nor "a".)
func FuzzIgnorePattern(f *testing.F) {
	f.Add("*.log\n!keep.log\nbuild/\n", "a/build/x.log", false)
	f.Add("\xef\xbb\xbf/a/**/b\r\n[!a-c]?\n", "a/x/y/b", true)
	f.Add("[[:alpha:]\n\\\n[]\n**/\n", "]", false)
	f.Fuzz(func(t *testing.T, data, path string, isDir bool) {
		if checkPath(path) != nil || strings.IndexByte(path, 0) >= 0 {
			return
		}
		ps := parsePatterns([]byte(data), "", ".gitignore")
		for _, m := range []matcher{{ignoreCase: false}, {ignoreCase: true}} {
			got := m.lastMatch(ps, path, isDir)
			if got != nil && got.flags&flagMustBeDir != 0 && !isDir {
				t.Fatalf("directory-only pattern %q matched the file %q", got.text, path)
			}
		}
		var esc strings.Builder
		for i := 0; i < len(path); i++ {
			if path[i] != '/' {
				esc.WriteByte('\\')
			}
			esc.WriteByte(path[i])
		}
		if !wildmatch(esc.String(), path, wmPathname) {
			t.Fatalf("escaped literal %q does not match %q", esc.String(), path)
		}
	})
}

// FuzzParseIndex feeds arbitrary bytes (after a valid header) to the index
// reader: it must fail cleanly, never panic or over-allocate.
func FuzzParseIndex(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + strings.Repeat("\x00", 62) + "\x05a\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Zero trailer: exercise the parser rather than the checksum.
		in := append(append([]byte(nil), data...), make([]byte, 20)...)
		entries, err := parseIndex(in)
		if err == nil {
			for _, e := range entries {
				if e.stage < 0 || e.stage > 3 {
					t.Fatalf("stage %d out of range", e.stage)
				}
			}
		}
	})
}

// FuzzParseConfig feeds arbitrary config text to the parser.
func FuzzParseConfig(f *testing.F) {
	f.Add("[core]\n\tignoreCase = true\n[a \"b\\\"c\"]\nk = \"v ; x\" # c\n")
	f.Add("[a.B] k\n[x]y=1\\\n2\n")
	f.Fuzz(func(t *testing.T, data string) {
		c := &configParser{}
		if err := c.parse([]byte(data), "fuzz", maxIncludeDepth); err != nil {
			return
		}
		for _, e := range c.out {
			if e.key == "" || strings.ToLower(e.section) != e.section {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}

// FuzzApplyDelta applies arbitrary deltas to arbitrary bases: an accepted
// delta's result has exactly the size the delta announces.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("0123456789abcdef"), []byte{16, 9, 0x91, 2, 4, 3, 'x', 'y', 'z', 0x91, 14, 2})
	f.Add([]byte(""), []byte{0, 3, 3, 'a', 'b', 'c'})
	f.Add([]byte("abc"), []byte{3, 0x80, 0x80, 0x04, 0x80})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := applyDelta(base, delta)
		if err != nil {
			return
		}
		_, rest, _ := deltaSize(delta)
		want, _, _ := deltaSize(rest)
		if uint64(len(out)) != want {
			t.Fatalf("result of %d bytes, delta announces %d", len(out), want)
		}
	})
}

// FuzzPackIndex validates arbitrary bytes as a version 2 pack index and
// looks ids up in an accepted one: never a panic, and a found offset is
// not negative.
func FuzzPackIndex(f *testing.F) {
	valid := []byte("\377tOc\x00\x00\x00\x02")
	fan := make([]byte, 256*4)
	for i := 0xab; i < 256; i++ {
		fan[4*i+3] = 1
	}
	valid = append(valid, fan...)
	id := bytes.Repeat([]byte{0xab}, 20)
	valid = append(valid, id...)
	valid = append(valid, 0, 0, 0, 0)  // CRC32
	valid = append(valid, 0, 0, 0, 12) // offset
	valid = append(valid, make([]byte, 40)...)
	f.Add(valid, id)
	big := bytes.Clone(valid)
	copy(big[8+256*4+24:], []byte{0x80, 0, 0, 0})
	big = append(big[:len(big)-40], append([]byte{0, 0, 0, 1, 0, 0, 0, 0}, make([]byte, 40)...)...)
	f.Add(big, id)
	f.Fuzz(func(t *testing.T, idx, id []byte) {
		n, err := checkIdx(idx)
		if err != nil || len(id) != 20 {
			return
		}
		p := &packFile{idx: idx, n: n}
		if off, ok := p.find(id); ok && off < 0 {
			t.Fatalf("negative offset %d", off)
		}
	})
}

// FuzzLooseHeader parses arbitrary loose object headers and OFS_DELTA
// offsets.
func FuzzLooseHeader(f *testing.F) {
	f.Add([]byte("blob 12\x00hello world\n"))
	f.Add([]byte("tree 0\x00"))
	f.Add([]byte("commit 012\x00"))
	f.Add([]byte{0x91, 0x2e})
	f.Fuzz(func(t *testing.T, b []byte) {
		if typ, size, rest, ok := parseLooseHeader(b); ok {
			if typeName(map[string]int{"commit": 1, "tree": 2, "blob": 3, "tag": 4}[typ]) != typ || size < 0 || len(rest) > len(b) {
				t.Fatalf("bad header %q %d", typ, size)
			}
		}
		if v, n, err := decodeOfs(b); err == nil && (v < 0 || n > len(b) || n < 1) {
			t.Fatalf("offset %d from %d bytes", v, n)
		}
	})
}

// FuzzCommitHeader: whenever parseCommitHeader accepts a commit, go-git
// decodes the same tree, parents and committer instant from it.
func FuzzCommitHeader(f *testing.F) {
	id := strings.Repeat("ab", 20)
	f.Add([]byte("tree " + id + "\nparent " + id + "\nauthor A <a@x> 1 +0000\ncommitter C <c@x> 1600000000 +0200\n\nmsg\n"))
	f.Add([]byte("tree " + id + "\nauthor A <a@x> 1 +0000\ncommitter C <c> x> 12 -0130\ngpgsig x\n y\n\n"))
	f.Add([]byte("tree " + id + "\nauthor A\ncommitter <>  7\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, parents, when, ok := parseCommitHeader(data)
		if !ok {
			return
		}
		mo := &plumbing.MemoryObject{}
		mo.SetType(plumbing.CommitObject)
		mo.Write(data)
		var c object.Commit
		if err := c.Decode(mo); err != nil {
			t.Fatalf("accepted, go-git refuses: %v", err)
		}
		if c.TreeHash.String() != tree || len(c.ParentHashes) != len(parents) || !c.Committer.When.Equal(when) {
			t.Fatalf("got %s %v %v, go-git %s %v %v", tree, parents, when, c.TreeHash, c.ParentHashes, c.Committer.When)
		}
		for i, p := range c.ParentHashes {
			if p.String() != parents[i] {
				t.Fatalf("parent %d: %s, go-git %s", i, parents[i], p)
			}
		}
	})
}

// FuzzParseCommit: whenever parseCommit accepts a commit, every field it
// gives is the one go-git's Commit.Decode gives, to the location of each
// date (TreeReader.Commit answered through go-git before, and describes
// commits from these fields).
func FuzzParseCommit(f *testing.F) {
	for _, c := range commitParseCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParseCommit(t, data)
	})
}

// commitParseCases are the seeds of FuzzParseCommit and the table of
// TestParseCommitMatchesGoGit: canonical commits and the signature edges
// of go-git's Signature.Decode (zones that do not parse, "-00mm", a
// missing time, '<' and '>' out of order), and layouts parseCommit must
// leave to go-git.
var commitParseCases = func() []string {
	id := strings.Repeat("ab", 20)
	head := "tree " + id + "\nparent " + id + "\n"
	var out []string
	for _, sig := range []string{
		"A U Thor <a@x> 1600000000 +0200", "  spaced   name  <e> 12 -0130", "N <e> 12 -0030",
		"N <e> 12", "N <e> 12 ", "N <e> 12 +01", "N <e> 12 +01x0", "N <e>", "N <e> x 0000",
		"N <e>  12 +0000", "N > x < 12 +0000", "no brackets 12 +0000", "<> 0 +0000", "N <a<b>> 5 +9999",
		"N <e> -5 -1200", "N <e> 9999999999999 +1400",
	} {
		out = append(out, head+"author "+sig+"\ncommitter "+sig+"\n\nsubject\n\nbody\n")
	}
	return append(out,
		"tree "+id+"\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\n\n",
		"tree "+id+"\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\n",
		"tree "+id+"\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\n\n\n  leading blank\n",
		"tree "+id+"\nparent "+id+"\nparent "+strings.Repeat("cd", 20)+"\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\n\nmerge",
		"tree "+id+"\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\ngpgsig x\n y\n\nsigned\n",
		"tree "+id+"\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\nencoding latin1\n\nm\n",
		"tree "+strings.ToUpper(id)+"\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000\n\nm\n",
		"tree "+id+"\ncommitter C <c> 2 +0000\n\nno author\n",
		"tree "+id+"\nauthor A <a> 1 +0000\ncommitter C <c> 2 +0000",
		"tree "+id+"\nauthor\ncommitter\n\nm",
		"tree "+id+"\nauthor A <a> 1 +0000\r\ncommitter C <c> 2 +0000\r\n\r\nm",
		"",
	)
}()

// checkParseCommit fails t when parseCommit accepts data and any field
// differs from go-git's decoding of it.
func checkParseCommit(t *testing.T, data []byte) {
	t.Helper()
	id := strings.Repeat("12", 20)
	got, ok := parseCommit(id, data)
	if !ok {
		return
	}
	mo := &plumbing.MemoryObject{}
	mo.SetType(plumbing.CommitObject)
	mo.Write(data)
	var c object.Commit
	if err := c.Decode(keyedObject{mo, plumbing.NewHash(id)}); err != nil {
		t.Fatalf("%q: accepted, go-git refuses: %v", data, err)
	}
	var parents []string
	for _, p := range c.ParentHashes {
		parents = append(parents, p.String())
	}
	sameTime := func(a, b time.Time) bool {
		_, oa := a.Zone()
		_, ob := b.Zone()
		return a.Equal(b) && oa == ob && a.Location().String() == b.Location().String()
	}
	if got.Hash != c.Hash.String() || got.Tree != c.TreeHash.String() || !slices.Equal(got.Parents, parents) ||
		got.AuthorName != c.Author.Name || got.AuthorEmail != c.Author.Email || got.Message != c.Message ||
		!sameTime(got.AuthorDate, c.Author.When) || !sameTime(got.CommitDate, c.Committer.When) {
		t.Fatalf("%q:\n got %+v\n go-git %s %s %v %q %q %v %v %q", data, got, c.Hash, c.TreeHash, parents,
			c.Author.Name, c.Author.Email, c.Author.When, c.Committer.When, c.Message)
	}
}

// FuzzCommitGraph parses arbitrary commit-graph bodies (the checksum is
// recomputed so the parser, not the hash, is exercised) and looks every
// listed commit up: never a panic, and parents are always listed ids.
func FuzzCommitGraph(f *testing.F) {
	f.Add([]byte("CGPH\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x14"))
	f.Fuzz(func(t *testing.T, body []byte) {
		sum := sha1.Sum(body)
		g, err := parseCommitGraph(append(append([]byte(nil), body...), sum[:]...))
		if err != nil {
			return
		}
		listed := map[string]bool{}
		for i := 0; i < g.n; i++ {
			listed[hex.EncodeToString(g.oids[i*20:i*20+20])] = true
		}
		for i := 0; i < g.n && i < 64; i++ {
			_, parents, _, ok := g.lookup(g.oids[i*20 : i*20+20])
			for _, p := range parents {
				if ok && !listed[p] {
					t.Fatalf("parent %s is not in the graph", p)
				}
			}
		}
	})
}

// FuzzInflate feeds arbitrary bytes, as a pack's zlib stream, to the
// in-memory inflater (inflate.go): it must never panic, and whatever it
// decodes without an error must be what the standard library's zlib
// reader decodes from the same bytes: on a whole read all of it (checksum
// included), on a prefix read its first len(dst) bytes.
func FuzzInflate(f *testing.F) {
	for _, s := range []string{"", "x", "tree 0123\nparent 4567\n", strings.Repeat("abc", 400),
		"tree 0123\nauthor A <a> 1 +0000\ncommitter A <a> 1 +0000\n\nmessage\ncommitter x\n"} {
		for _, level := range []int{zlib.NoCompression, zlib.BestSpeed, zlib.BestCompression, zlib.HuffmanOnly} {
			var z bytes.Buffer
			w, _ := zlib.NewWriterLevel(&z, level)
			w.Write([]byte(s))
			w.Close()
			f.Add(z.Bytes(), uint16(len(s)), true)
			f.Add(z.Bytes(), uint16(len(s)/2), false)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, n uint16, whole bool) {
		var d inflater
		dst := make([]byte, n)
		if d.inflate(src, dst, whole) != nil {
			return
		}
		zr, err := zlib.NewReader(bytes.NewReader(src))
		if err != nil {
			t.Fatalf("inflate decoded %d bytes; zlib refuses the header: %v", n, err)
		}
		want := make([]byte, int(n)+1)
		got, err := io.ReadFull(zr, want)
		// On a whole read zlib must reach the stream's end, checksum
		// verified, after exactly n bytes: ReadFull then reports
		// ErrUnexpectedEOF (EOF when n is 0), not ErrChecksum or another.
		if whole {
			if got != int(n) || err != io.ErrUnexpectedEOF && err != io.EOF {
				t.Fatalf("whole read of %d bytes succeeded; zlib gives %d bytes, %v", n, got, err)
			}
		} else if got < int(n) {
			// A stream cut short: Go's flate stops before the last
			// match at the end of the input (testdata dd740b4b: Go gives
			// 1,034 bytes, C zlib, which git links, 1,292 and no error,
			// as this inflater does). So only when this inflater read to
			// the input's last byte may a prefix outrun Go's zlib.
			if used := d.pos - int(d.nb/8); err != io.ErrUnexpectedEOF || used < len(src)-1 {
				t.Fatalf("prefix read of %d bytes succeeded; zlib gives only %d (%v)", n, got, err)
			}
			want = append(want[:got], dst[got:]...)
		}
		if !bytes.Equal(dst, want[:n]) {
			t.Fatalf("inflate and zlib decode different bytes")
		}
		if whole {
			return
		}
		// A header read of the same stream gives the same bytes, cut
		// after the first committer line.
		hdr := make([]byte, n)
		m, err := d.inflateHeader(src, hdr)
		if err != nil {
			t.Fatalf("the prefix read decoded %d bytes; the header read fails: %v", n, err)
		}
		if end := min(int(n), headerEnd(want[:n])); m != end || !bytes.Equal(hdr[:m], want[:m]) {
			t.Fatalf("header read: %d bytes %q; want %d bytes %q", m, hdr[:m], end, want[:end])
		}
	})
}

// TestParseCommitMatchesGoGit runs FuzzParseCommit's seeds as a table,
// and proves the fast path is taken for the canonical ones (a parser
// that refused everything would pass the fuzz check).
func TestParseCommitMatchesGoGit(t *testing.T) {
	accepted := 0
	for _, c := range commitParseCases {
		checkParseCommit(t, []byte(c))
		if _, ok := parseCommit(strings.Repeat("12", 20), []byte(c)); ok {
			accepted++
		}
	}
	// The 16 signature cases and the first four layouts are canonical.
	if accepted != 20 {
		t.Fatalf("parseCommit accepted %d of the canonical cases, want 20", accepted)
	}
}
