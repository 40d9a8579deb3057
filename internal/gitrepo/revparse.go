package gitrepo

import (
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// The revision resolver. It replaces go-git's Repository.ResolveRevision
// so that the product does not link go-git's root package, whose imports
// (every transport: ssh, ssh_config, net/http; commit signing) cost every
// process their package init before main (issue 19 part 0). It follows
// gitrevisions(7), with `git rev-parse` as referee (revparse_test.go), for
// the syntax go-git resolved before:
//
//   - a full object id (40 hex digits);
//   - a reference name expanded by git's rules: NAME, refs/NAME,
//     refs/tags/NAME, refs/heads/NAME, refs/remotes/NAME,
//     refs/remotes/NAME/HEAD, the first that exists; "@" alone is HEAD;
//   - an abbreviated object id of at least 4 hex digits naming exactly
//     one commit (or tag of a commit), tried after the references as git
//     does; more than one is an error, as in git;
//   - the suffixes ~, ~N, ^, ^N (the Nth parent, ^0 the commit itself),
//     ^{}, ^{commit}, ^{object} and ^{/REGEX} (the youngest commit
//     reachable whose message matches, /!-REGEX for one that does not).
//
// Everything else (reflogs and @{upstream}, <rev>:<path>, ranges, ^{tree})
// is an error wrapping ErrRevisionSyntax: go-git parsed several of those
// and then ignored them, answering for a different revision.

// ErrRevisionSyntax is wrapped by the error for revision syntax that the
// resolver does not implement.
var ErrRevisionSyntax = errors.New("unsupported revision syntax")

// errUnknownRevision is wrapped by the error for a well-formed revision
// that names nothing in the repository.
var errUnknownRevision = plumbing.ErrReferenceNotFound

// minAbbrev is git's minimum length of an abbreviated object id.
const minAbbrev = 4

// maxSuffixDepth bounds ~N and the nesting of suffixes; git has no limit
// but a revision is a command-line argument.
const maxSuffixDepth = 1 << 20

// resolveRevision resolves rev to a commit id. The caller holds gitMu.
func (r *Repo) resolveRevision(rev string) (plumbing.Hash, error) {
	if rev == "" {
		return plumbing.ZeroHash, fmt.Errorf("empty revision: %w", errUnknownRevision)
	}
	h, err := r.resolveObject(rev, 0)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	c, err := r.peelCommit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return plumbing.NewHash(c.Hash), nil
}

// resolveObject resolves rev to an object id, parsing suffixes from the
// end as git's get_oid_1 does, so that ^{/REGEX} may hold any character.
func (r *Repo) resolveObject(rev string, depth int) (plumbing.Hash, error) {
	if depth > 1000 {
		return plumbing.ZeroHash, fmt.Errorf("%w: too many suffixes in %q", ErrRevisionSyntax, rev)
	}
	// A trailing ~N or ^N (N optional).
	i := len(rev)
	for i > 0 && rev[i-1] >= '0' && rev[i-1] <= '9' {
		i--
	}
	if i > 0 && (rev[i-1] == '~' || rev[i-1] == '^') && i-1 > 0 {
		op, digits, base := rev[i-1], rev[i:], rev[:i-1]
		n := 1
		if digits != "" {
			v, err := strconv.Atoi(digits)
			if err != nil || v > maxSuffixDepth {
				return plumbing.ZeroHash, fmt.Errorf("%w: %c%s is too large", ErrRevisionSyntax, op, digits)
			}
			n = v
		}
		h, err := r.resolveObject(base, depth+1)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		c, err := r.peelCommit(h)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if op == '^' {
			if n == 0 {
				return plumbing.NewHash(c.Hash), nil
			}
			if n > len(c.Parents) {
				return plumbing.ZeroHash, fmt.Errorf("%s: commit %s has no parent %d: %w", rev, c.Hash, n, errUnknownRevision)
			}
			return plumbing.NewHash(c.Parents[n-1]), nil
		}
		for ; n > 0; n-- {
			if len(c.Parents) == 0 {
				return plumbing.ZeroHash, fmt.Errorf("%s: commit %s has no parent: %w", rev, c.Hash, errUnknownRevision)
			}
			if c, err = r.commit(plumbing.NewHash(c.Parents[0])); err != nil {
				return plumbing.ZeroHash, err
			}
		}
		return plumbing.NewHash(c.Hash), nil
	}
	// A trailing ^{...}: the last "^{" before it opens it.
	if strings.HasSuffix(rev, "}") {
		open := strings.LastIndex(rev, "^{")
		if open <= 0 {
			return plumbing.ZeroHash, fmt.Errorf("%w: %q", ErrRevisionSyntax, rev)
		}
		base, what := rev[:open], rev[open+2:len(rev)-1]
		h, err := r.resolveObject(base, depth+1)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		switch {
		case what == "object":
			if _, err := r.st.EncodedObject(plumbing.AnyObject, h); err != nil {
				return plumbing.ZeroHash, fmt.Errorf("%s: object %s: %w", rev, h, err)
			}
			return h, nil
		case what == "" || what == "commit":
			c, err := r.peelCommit(h)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			return plumbing.NewHash(c.Hash), nil
		case strings.HasPrefix(what, "/"):
			return r.searchMessage(h, what[1:], rev)
		}
		return plumbing.ZeroHash, fmt.Errorf("%w: ^{%s} in %q", ErrRevisionSyntax, what, rev)
	}
	return r.resolveBase(rev)
}

// resolveBase resolves a revision without suffixes: an object id, a
// reference name or an abbreviated id, in git's order (get_oid_basic,
// then get_short_oid).
func (r *Repo) resolveBase(name string) (plumbing.Hash, error) {
	if name == "@" {
		name = "HEAD"
	}
	if strings.Contains(name, "@{") || strings.Contains(name, ":") || strings.HasPrefix(name, "^") || strings.Contains(name, "..") {
		return plumbing.ZeroHash, fmt.Errorf("%w: %q (reflogs, @{upstream}, <rev>:<path>, negations and ranges are not read here)", ErrRevisionSyntax, name)
	}
	if len(name) == 2*len(plumbing.ZeroHash) && isHex(name) {
		return plumbing.NewHash(strings.ToLower(name)), nil
	}
	if validRefName(name) {
		// As go-git's expansion and git's dwim_ref: the first rule that
		// names a readable reference wins; the others' errors (no such
		// file, a name the storage refuses outside refs/) are not answers.
		for _, rule := range plumbing.RefRevParseRules {
			ref, err := storer.ResolveReference(r.st, plumbing.ReferenceName(fmt.Sprintf(rule, name)))
			if err == nil {
				return ref.Hash(), nil
			}
		}
	}
	if len(name) >= minAbbrev && len(name) < 2*len(plumbing.ZeroHash) && isHex(name) {
		return r.resolveAbbrev(strings.ToLower(name))
	}
	if !validRefName(name) {
		return plumbing.ZeroHash, fmt.Errorf("%w: %q is not a valid reference name", ErrRevisionSyntax, name)
	}
	// The bare sentinel, as go-git answered: callers' messages quote the
	// revision already ("Cannot read revision 'x': ... reference not found").
	return plumbing.ZeroHash, errUnknownRevision
}

// resolveAbbrev finds the one commit, or tag of a commit, whose id starts
// with the lower-case hex prefix (git disambiguates for a commit-ish).
func (r *Repo) resolveAbbrev(prefix string) (plumbing.Hash, error) {
	even, err := hex.DecodeString(prefix[:len(prefix)&^1])
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("abbreviated id %s: %w", prefix, err)
	}
	cands, err := r.st.HashesWithPrefix(even)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("abbreviated id %s: %w", prefix, err)
	}
	var found []plumbing.Hash
	seen := map[plumbing.Hash]bool{}
	for _, h := range cands {
		if seen[h] || !strings.HasPrefix(h.String(), prefix) {
			continue
		}
		seen[h] = true
		if _, err := r.peelCommit(h); err == nil {
			found = append(found, h)
		}
	}
	switch len(found) {
	case 0:
		return plumbing.ZeroHash, fmt.Errorf("%s: %w", prefix, errUnknownRevision)
	case 1:
		return found[0], nil
	}
	return plumbing.ZeroHash, fmt.Errorf("short object id %s is ambiguous (%d commits)", prefix, len(found))
}

// peelCommit reads h as a commit, following annotated tags.
func (r *Repo) peelCommit(h plumbing.Hash) (*Commit, error) {
	for range 100 {
		typ, data, err := r.readObject(h, plumbing.AnyObject)
		if err != nil {
			return nil, fmt.Errorf("object %s: %w", h, err)
		}
		switch typ {
		case plumbing.CommitObject:
			return decodeCommit(h.String(), data)
		case plumbing.TagObject:
			target, err := decodeTagTarget(data)
			if err != nil {
				return nil, fmt.Errorf("tag %s: %w", h, err)
			}
			h = target
		default:
			return nil, fmt.Errorf("object %s is a %s, not a commit: %w", h, typ, errUnknownRevision)
		}
	}
	return nil, fmt.Errorf("tag chain from %s is too long", h)
}

func (r *Repo) commit(h plumbing.Hash) (*Commit, error) {
	c, err := r.readCommit(h)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", h, err)
	}
	return c, nil
}

// searchMessage is ^{/REGEX}: the youngest commit reachable from h whose
// message matches, walking by committer date as git's get_oid_oneline
// does ("!-" negates, "!!" stands for a literal "!").
func (r *Repo) searchMessage(h plumbing.Hash, pattern, rev string) (plumbing.Hash, error) {
	negate := false
	if strings.HasPrefix(pattern, "!") {
		switch {
		case strings.HasPrefix(pattern, "!-"):
			negate, pattern = true, pattern[2:]
		case strings.HasPrefix(pattern, "!!"):
			pattern = pattern[1:]
		default:
			return plumbing.ZeroHash, fmt.Errorf("%w: %q (/! is reserved)", ErrRevisionSyntax, rev)
		}
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("%w: %q: %v", ErrRevisionSyntax, rev, err)
	}
	start, err := r.peelCommit(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	// A list ordered by committer date, newest first; a commit inserted
	// goes after those of the same date (commit_list_insert_by_date).
	queue := []*Commit{start}
	seen := map[string]bool{start.Hash: true}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if re.MatchString(c.Message) != negate {
			return plumbing.NewHash(c.Hash), nil
		}
		for _, p := range c.Parents {
			if seen[p] {
				continue
			}
			seen[p] = true
			pc, err := r.commit(plumbing.NewHash(p))
			if err != nil {
				return plumbing.ZeroHash, err
			}
			at := len(queue)
			for i, q := range queue {
				if q.CommitDate.Unix() < pc.CommitDate.Unix() {
					at = i
					break
				}
			}
			queue = append(queue[:at], append([]*Commit{pc}, queue[at:]...)...)
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("%s: no commit message matches %q: %w", rev, pattern, errUnknownRevision)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && (c < 'A' || c > 'F') {
			return false
		}
	}
	return s != ""
}

// validRefName is git-check-ref-format's rule for a name to look up (one
// level allowed, as HEAD): no component starting with "." or ending with
// ".lock", no "..", "//", "@{", control characters, space, ~ ^ : ? * [ \,
// no leading or trailing "/", no trailing ".", not "@". Lookups only follow
// such names, so a revision cannot name a file outside the refs.
func validRefName(name string) bool {
	if name == "" || name == "@" || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") || strings.HasSuffix(name, ".") ||
		strings.Contains(name, "..") || strings.Contains(name, "//") || strings.Contains(name, "@{") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return false
		}
	}
	for _, comp := range strings.Split(name, "/") {
		if strings.HasPrefix(comp, ".") || strings.HasSuffix(comp, ".lock") {
			return false
		}
	}
	return true
}
