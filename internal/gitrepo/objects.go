package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Commits, tags and trees read through go-git's object storage, decoded
// here. go-git's plumbing/object package did this before; it imports
// every OpenPGP algorithm (ProtonMail/go-crypto, cloudflare/circl,
// x/crypto: 48 packages) for signature checks this tool never makes, and
// every process paid their package initialisation before main (issue 19,
// part 0: 50 page faults and about 1.4 ms of a Go hello-world's 8 ms
// that links go-git's storage). The decoders follow go-git's scanners
// (plumbing/object commit_scanner.go, tag_scanner.go, Tree.Decode) for
// the fields read here, so every answer is the one go-git gave;
// FuzzDecodeCommit, FuzzDecodeTagTarget and FuzzDecodeTree hold them
// equal, with go-git linked into the tests only.

var (
	errMalformedCommit = errors.New("malformed commit")
	errMalformedTag    = errors.New("malformed tag")
	errMalformedTree   = errors.New("malformed tree")
)

// readObject returns the type and bytes of object h. A want other than
// plumbing.AnyObject is a type the object must have (go-git's storage
// answers plumbing.ErrObjectNotFound otherwise).
func (r *Repo) readObject(h plumbing.Hash, want plumbing.ObjectType) (plumbing.ObjectType, []byte, error) {
	return readStored(r.st, h, want)
}

// readStored is readObject from an object storage (a TreeReader's own,
// for what its fast reader cannot read).
func readStored(st storer.EncodedObjectStorer, h plumbing.Hash, want plumbing.ObjectType) (plumbing.ObjectType, []byte, error) {
	obj, err := st.EncodedObject(want, h)
	if err != nil {
		return 0, nil, err
	}
	rd, err := obj.Reader()
	if err != nil {
		return 0, nil, err
	}
	data, err := io.ReadAll(rd)
	if cerr := rd.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, nil, err
	}
	return obj.Type(), data, nil
}

// readCommit reads and decodes commit h.
func (r *Repo) readCommit(h plumbing.Hash) (*Commit, error) {
	_, data, err := r.readObject(h, plumbing.CommitObject)
	if err != nil {
		return nil, err
	}
	return decodeCommit(h.String(), data)
}

// lineReader reads data a line at a time as bufio.Reader.ReadBytes('\n')
// does (the newline kept; eof when a line has none, or there is no line
// left), with one line of push-back, as go-git's scanners read.
type lineReader struct {
	data    []byte
	pending []byte
	pendEOF bool
	pushed  bool
}

func (l *lineReader) next() (line []byte, eof bool) {
	if l.pushed {
		l.pushed = false
		return l.pending, l.pendEOF
	}
	i := bytes.IndexByte(l.data, '\n')
	if i < 0 {
		line, l.data = l.data, nil
		return line, true
	}
	line, l.data = l.data[:i+1], l.data[i+1:]
	return line, false
}

func (l *lineReader) pushBack(line []byte, eof bool) {
	l.pending, l.pendEOF, l.pushed = line, eof, true
}

func isBlankLine(line []byte) bool { return len(line) == 1 && line[0] == '\n' }

// splitHeader is go-git's: the key before the first space of the line
// (its newlines trimmed), the value after it; no space, no value.
func splitHeader(line []byte) (string, []byte) {
	key, value, ok := bytes.Cut(bytes.TrimRight(line, "\n"), []byte{' '})
	if !ok {
		return string(key), nil
	}
	return string(key), value
}

// hexObjectID is go-git's parseObjectIDHex: 40 hex digits of either case,
// printed in lower case.
func hexObjectID(v []byte) (string, bool) {
	if !plumbing.IsHash(string(v)) {
		return "", false
	}
	return strings.ToLower(string(v)), true
}

// decodeCommit decodes a commit as go-git's Commit.Decode does: a tree
// line first (an error without one), parent lines (an error for a bad
// id), an optional author line then an optional committer line, any
// other headers (their continuation lines included: none of them is a
// blank line) up to the first blank line, and the rest the message. The
// end of the data ends it anywhere. parseCommit is the fast path for the
// canonical layout.
func decodeCommit(hash string, data []byte) (*Commit, error) {
	if c, ok := parseCommit(hash, data); ok {
		return c, nil
	}
	l := &lineReader{data: data}
	c := &Commit{Hash: hash}
	line, eof := l.next()
	if len(line) == 0 || isBlankLine(line) {
		return nil, fmt.Errorf("%w: missing tree header", errMalformedCommit)
	}
	key, v := splitHeader(line)
	if key != "tree" {
		return nil, fmt.Errorf("%w: tree header must be first", errMalformedCommit)
	}
	id, ok := hexObjectID(v)
	if !ok {
		return nil, fmt.Errorf("%w: bad tree hash", errMalformedCommit)
	}
	c.Tree = id
	if eof {
		return c, nil
	}
	// Parents, then one author and one committer line, each optional
	// (stages 0 to 2), then any other headers (stage 3, skipped), to the
	// first blank line.
	stage := 0
	for {
		line, eof = l.next()
		if len(line) == 0 {
			return c, nil
		}
		if isBlankLine(line) {
			c.Message = string(l.data)
			return c, nil
		}
		key, v = splitHeader(line)
		switch {
		case stage == 0 && key == "parent":
			id, ok := hexObjectID(v)
			if !ok {
				return nil, fmt.Errorf("%w: bad parent hash", errMalformedCommit)
			}
			c.Parents = append(c.Parents, id)
		case stage <= 1 && key == "author":
			c.AuthorName, c.AuthorEmail, c.AuthorDate = decodeSignature(v)
			stage = 2
		case stage <= 2 && key == "committer":
			_, _, c.CommitDate = decodeSignature(v)
			stage = 3
		case stage < 3:
			// Not this stage's header: the next stage reads it.
			l.pushBack(line, eof)
			stage++
			continue
		}
		if eof {
			return c, nil
		}
	}
}

// decodeTagTarget returns the object an annotated tag points at, with
// go-git's Tag.Decode errors: an "object" line first with an id, then a
// "type" line naming an object type, then a "tag" line; the end of the
// data may come after any of them.
func decodeTagTarget(data []byte) (plumbing.Hash, error) {
	l := &lineReader{data: data}
	want := []string{"object", "type", "tag"}
	var target plumbing.Hash
	for i, header := range want {
		line, eof := l.next()
		if len(line) == 0 || isBlankLine(line) {
			return plumbing.ZeroHash, fmt.Errorf("%w: missing %s header", errMalformedTag, header)
		}
		key, v := splitHeader(line)
		if key != header {
			if i == 0 {
				return plumbing.ZeroHash, fmt.Errorf("%w: object header must be first", errMalformedTag)
			}
			return plumbing.ZeroHash, fmt.Errorf("%w: %s header must follow %s", errMalformedTag, header, want[i-1])
		}
		switch header {
		case "object":
			id, ok := hexObjectID(v)
			if !ok {
				return plumbing.ZeroHash, fmt.Errorf("%w: bad object hash", errMalformedTag)
			}
			target = plumbing.NewHash(id)
		case "type":
			if _, err := plumbing.ParseObjectType(string(v)); err != nil {
				return plumbing.ZeroHash, err
			}
		}
		if eof {
			break
		}
	}
	return target, nil
}

// decodeTree lists a tree's entries as go-git's Tree.Decode does: "MODE
// NAME\0" and a 20-byte id each, the mode canonical (canonicalTreeMode),
// an error for a mode that does not parse, an empty name or a cut entry.
func decodeTree(data []byte) ([]TreeItem, error) {
	var out []TreeItem
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("%w: missing mode terminator", errMalformedTree)
		}
		mode, err := filemode.New(string(data[:sp]))
		if err != nil {
			return nil, fmt.Errorf("%w: malformed mode", errMalformedTree)
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 {
			return nil, fmt.Errorf("%w: missing filename terminator", errMalformedTree)
		}
		if nul == 0 {
			return nil, fmt.Errorf("%w: empty filename", errMalformedTree)
		}
		if len(data) < nul+21 {
			return nil, fmt.Errorf("%w: truncated object id", errMalformedTree)
		}
		var h plumbing.Hash
		copy(h[:], data[nul+1:nul+21])
		out = append(out, TreeItem{Name: string(data[:nul]), Mode: canonicalTreeMode(mode), Hash: h.String()})
		data = data[nul+21:]
	}
	return out, nil
}

// canonicalTreeMode is go-git's reading of a mode in a tree object, as
// git's canon_mode: by its type bits alone.
func canonicalTreeMode(mode filemode.FileMode) filemode.FileMode {
	switch mode & 0o170000 {
	case 0o040000:
		return filemode.Dir
	case 0o100000:
		if mode&0o111 != 0 {
			return filemode.Executable
		}
		return filemode.Regular
	case 0o120000:
		return filemode.Symlink
	default:
		return filemode.Submodule
	}
}

// readTree reads and decodes tree h.
func (r *Repo) readTree(h plumbing.Hash) ([]TreeItem, error) {
	_, data, err := r.readObject(h, plumbing.TreeObject)
	if err != nil {
		return nil, err
	}
	return decodeTree(data)
}

// treeFiles lists the files (everything but directories) at or under
// prefix of tree h, sorted by path; nothing when prefix is absent or
// crosses a file. The caller holds gitMu.
func (r *Repo) treeFiles(h plumbing.Hash, prefix string) ([]Entry, error) {
	items, err := r.readTree(h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	prefix = strings.Trim(prefix, "/")
	base := ""
	if prefix != "" {
		// go-git's Tree.FindEntry: the path checked (validTreePath), then
		// each name looked up in turn; a name missing, or one that is not
		// a directory with more path after it, is not found.
		if err := validTreePath(prefix); err != nil {
			return nil, err
		}
		parts := strings.Split(prefix, "/")
		for i, name := range parts {
			var it *TreeItem
			for j := range items {
				if items[j].Name == name {
					it = &items[j]
					break
				}
			}
			if it == nil {
				return nil, nil
			}
			if i == len(parts)-1 && it.Mode != filemode.Dir {
				return []Entry{r.treeEntry(prefix, *it)}, nil
			}
			if it.Mode != filemode.Dir {
				return nil, nil
			}
			sub := plumbing.NewHash(it.Hash)
			if items, err = r.readTree(sub); err != nil {
				return nil, fmt.Errorf("read tree %s: %w", sub, err)
			}
		}
		base = prefix + "/"
	}
	// The walk checks every name it meets (validTreePath) and refuses
	// trees nested past maxTreeDepth, as go-git's TreeWalker did; a
	// subtree it cannot read is an error (the TreeWalker ended the walk
	// there without one, answering with the files read so far).
	var out []Entry
	var walk func(items []TreeItem, dir string, depth int) error
	walk = func(items []TreeItem, dir string, depth int) error {
		if depth > maxTreeDepth {
			return errMaxTreeDepth
		}
		for _, it := range items {
			if err := validTreePath(it.Name); err != nil {
				return err
			}
			if it.Mode != filemode.Dir {
				out = append(out, r.treeEntry(dir+it.Name, it))
				continue
			}
			sub := plumbing.NewHash(it.Hash)
			children, err := r.readTree(sub)
			if err != nil {
				return fmt.Errorf("read tree %s: %w", sub, err)
			}
			if err := walk(children, dir+it.Name+"/", depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(items, base, 0); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// mergeBases returns the best common ancestors of a and b (git
// merge-base --all), unsorted, with git's paint_down_to_common and
// remove_redundant (commit-reach.c): commits are taken newest first by
// committer date, painted with the side(s) they are reachable from; one
// reachable from both is a candidate and paints its ancestors stale, and
// the walk ends when only stale commits are left to take. A commit the
// shallow file lists has no parents, as in git. Reading a missing
// commit is an error.
func mergeBases(tr *TreeReader, shallow map[string]bool, a, b string) ([]string, error) {
	if a == b {
		return []string{a}, nil
	}
	const (
		side1 = 1 << iota
		side2
		stale
		result
	)
	flags := map[string]uint8{}
	heads := map[string]*Commit{}
	header := func(h string) (*Commit, error) {
		if c, ok := heads[h]; ok {
			return c, nil
		}
		c, err := tr.CommitHeader(h)
		if err != nil {
			return nil, err
		}
		heads[h] = c
		return c, nil
	}
	var queue commitQueue
	for _, s := range []struct {
		h    string
		side uint8
	}{{a, side1}, {b, side2}} {
		c, err := header(s.h)
		if err != nil {
			return nil, err
		}
		flags[s.h] |= s.side
		queue.push(c)
	}
	var found []string
	for queue.nonStale(flags, stale) {
		c := queue.pop()
		f := flags[c.Hash] & (side1 | side2 | stale)
		if f == side1|side2 {
			if flags[c.Hash]&result == 0 {
				flags[c.Hash] |= result
				found = append(found, c.Hash)
			}
			f |= stale
		}
		if shallow[c.Hash] {
			continue
		}
		for _, p := range c.Parents {
			if flags[p]&f == f {
				continue
			}
			pc, err := header(p)
			if err != nil {
				return nil, err
			}
			flags[p] |= f
			queue.push(pc)
		}
	}
	if len(found) < 2 {
		return found, nil
	}
	// remove_redundant: a candidate that is an ancestor of another is
	// not a best one.
	var out []string
	for i, x := range found {
		redundant := false
		for j, y := range found {
			if i == j {
				continue
			}
			ok, err := reaches(header, tr.Generation, shallow, y, x)
			if err != nil {
				return nil, err
			}
			if ok {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, x)
		}
	}
	return out, nil
}

// reaches reports whether target is from or one of its ancestors: a
// walk of from's ancestors, made only when a merge-base has two or more
// candidates (criss-cross merges). Where the commit-graph gives target a
// generation number (its topological level), the walk does not go below
// it, as git's remove_redundant does (commit-reach.c, min_generation): a
// commit the graph lists at that generation or lower is not target and
// cannot reach it, since each commit's level is above its parents'. The
// candidates are near the tips, so the walk reads the commits between
// them and not the history below (what it read before). A commit the
// graph does not list (newer than the graph) is walked; a shallow
// boundary only removes parents, so the bound still holds.
func reaches(header func(string) (*Commit, error), generation func(string) (uint32, bool), shallow map[string]bool, from, target string) (bool, error) {
	floor, bounded := generation(target)
	seen := map[string]bool{from: true}
	stack := []string{from}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if h == target {
			return true, nil
		}
		if shallow[h] {
			continue
		}
		if bounded {
			if g, ok := generation(h); ok && g <= floor {
				continue
			}
		}
		c, err := header(h)
		if err != nil {
			return false, err
		}
		for _, p := range c.Parents {
			if !seen[p] {
				seen[p] = true
				stack = append(stack, p)
			}
		}
	}
	return false, nil
}

// commitQueue is git's commit list by date: newest committer date first,
// a commit inserted after those of the same date.
type commitQueue struct{ list []*Commit }

func (q *commitQueue) push(c *Commit) {
	at := sort.Search(len(q.list), func(i int) bool { return q.list[i].CommitDate.Before(c.CommitDate) })
	q.list = append(q.list, nil)
	copy(q.list[at+1:], q.list[at:])
	q.list[at] = c
}

func (q *commitQueue) pop() *Commit {
	c := q.list[0]
	q.list = q.list[1:]
	return c
}

// nonStale reports whether any queued commit is not painted stale.
func (q *commitQueue) nonStale(flags map[string]uint8, stale uint8) bool {
	for _, c := range q.list {
		if flags[c.Hash]&stale == 0 {
			return true
		}
	}
	return false
}
