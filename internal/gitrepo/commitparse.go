package gitrepo

import (
	"bytes"
	"strconv"
	"time"
)

// parseCommit reads a whole commit in the canonical layout git writes
// (see parseCommitHeader): "tree", any "parent" lines, "author",
// "committer", a blank line, the message. Anything else (a signed
// commit's gpgsig, an encoding or mergetag header, a missing author, a
// name that is not 40 lower-case hex digits) answers false, and the
// general decoder (decodeCommit, objects.go) reads the commit. Within
// the layout the fields are exactly what go-git's Commit.Decode gives
// (plumbing/object commit_scanner.go, Signature.Decode): FuzzParseCommit
// holds the two equal. Decoding every described commit through go-git (a MemoryObject,
// a bufio reader, the hex round trips) was a tenth of a cold stale
// (issue 18, "Speed").
func parseCommit(hash string, data []byte) (*Commit, bool) {
	line := func(key string) (v []byte, ok bool) {
		v, data, ok = cutHeaderLine(data, key)
		return v, ok
	}
	v, ok := line("tree")
	if !ok || !isLowerHexID(v) {
		return nil, false
	}
	c := &Commit{Hash: hash, Tree: string(v)}
	for bytes.HasPrefix(data, []byte("parent ")) {
		if v, ok = line("parent"); !ok || !isLowerHexID(v) {
			return nil, false
		}
		c.Parents = append(c.Parents, string(v))
	}
	author, ok := line("author")
	if !ok {
		return nil, false
	}
	committer, ok := line("committer")
	if !ok {
		return nil, false
	}
	// go-git ends the headers at a line that is exactly "\n"; a commit
	// that ends after its committer line has an empty message.
	switch {
	case len(data) == 0:
	case data[0] == '\n':
		data = data[1:]
	default:
		return nil, false
	}
	c.AuthorName, c.AuthorEmail, c.AuthorDate = decodeSignature(author)
	_, _, c.CommitDate = decodeSignature(committer)
	c.Message = string(data)
	return c, true
}

// decodeSignature reads "name <email> seconds zone" as go-git's
// Signature.Decode does: the name and email around the last '<' and '>'
// (nothing when either is missing or they are out of order), the
// seconds up to the next space, and a five-character zone "+hhmm" that
// sets the location only when both of its parts parse.
func decodeSignature(b []byte) (name, email string, when time.Time) {
	open, end := bytes.LastIndexByte(b, '<'), bytes.LastIndexByte(b, '>')
	if open < 0 || end < 0 || end < open {
		return "", "", time.Time{}
	}
	name = string(bytes.Trim(b[:open], " "))
	email = string(b[open+1 : end])
	if end+2 >= len(b) {
		return name, email, time.Time{}
	}
	rest := b[end+2:]
	space := bytes.IndexByte(rest, ' ')
	if space < 0 {
		space = len(rest)
	}
	ts, err := strconv.ParseInt(string(rest[:space]), 10, 64)
	if err != nil {
		return name, email, time.Time{}
	}
	when = time.Unix(ts, 0).In(time.UTC)
	zone := rest[min(space+1, len(rest)):]
	if space+1 >= len(rest) || len(zone) < 5 {
		return name, email, when
	}
	hours, err1 := strconv.ParseInt(string(zone[0:3]), 10, 64)
	mins, err2 := strconv.ParseInt(string(zone[3:5]), 10, 64)
	if err1 != nil || err2 != nil {
		return name, email, when
	}
	if hours < 0 {
		mins = -mins
	}
	return name, email, when.In(time.FixedZone("", int(hours*60*60+mins*60)))
}

// cutHeaderLine cuts the header line "key value\n" from the front of
// data: its value, and the rest after the newline. ok is false, and
// rest is data, when data does not begin with such a whole line.
func cutHeaderLine(data []byte, key string) (v, rest []byte, ok bool) {
	if len(data) <= len(key) || string(data[:len(key)]) != key || data[len(key)] != ' ' {
		return nil, data, false
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return nil, data, false
	}
	return data[len(key)+1 : nl], data[nl+1:], true
}

// isLowerHexID reports whether v is an object name as git writes it: 40
// lower-case hex digits (go-git accepts upper case too, and prints it
// lower: such a commit is left to decodeCommit).
func isLowerHexID(v []byte) bool {
	if len(v) != 40 {
		return false
	}
	for _, c := range v {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
