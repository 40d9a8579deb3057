package freshness

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"strconv"

	"github.com/git-echoes/git-echoes/internal/fsx"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// The verdict cache: one file, verdicts (cachecodec.go), in the local cache
// directory (.git/echoes/stale: never part of a tree, shared by linked
// worktrees). A report is keyed by everything it depends on: the target
// commit (a commit id fixes its whole history), the shallow boundary (a
// deeper fetch moves anchors), and the document's path, kind, updated_at,
// work-tree flag and text (which fix its citations, its verified: field
// and so its anchor). The file holds the reports of one target; checking
// another target replaces it, so it stays bounded, after carrying over the
// reports that target's new commits cannot change (carry.go). It is never
// authoritative: a file that does not parse is ignored and rewritten.

const cacheVersion = 2

type cacheFile struct {
	Version int               `json:"version"`
	Target  string            `json:"target"`
	Reports map[string]Report `json:"reports"`
}

func docKey(target, shallow string, d Doc) string {
	h := sha256.New()
	// A committed blob's id stands for its bytes (the text is those
	// bytes): no page is read to key it.
	text := d.Text
	if d.Blob != "" {
		text = "blob " + d.Blob
	}
	for _, s := range []string{strconv.Itoa(cacheVersion), target, shallow, d.Path, strconv.FormatBool(d.Memory),
		d.UpdatedAt.UTC().String(), strconv.FormatBool(d.WorkTree), text} {
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CheckCached is Check with the verdict cache in dir: the reports it
// holds for these documents at this target are reused, the others are
// computed and the file rewritten. writeErr reports a cache file that
// could not be written (the reports are right all the same).
func CheckCached(repo *gitrepo.Repo, target string, docs []Doc, dir string) (reps []Report, writeErr error, err error) {
	keep := func(cf *cacheFile) error { return fsx.WriteFileAtomic(filepath.Join(dir, "verdicts"), encodeCache(cf)) }
	return checkCachedWith(repo, nil, target, docs, dir, keep)
}

// checkCachedReadOnly is CheckCached for a reader that never writes (the
// SessionStart hook): cached verdicts are used, the others computed and
// not kept.
func checkCachedReadOnly(repo *gitrepo.Repo, tr *gitrepo.TreeReader, target string, docs []Doc, dir string) ([]Report, error) {
	reps, _, err := checkCachedWith(repo, tr, target, docs, dir, nil)
	return reps, err
}

// checkCachedWith computes the reports, keeping the cache file through
// keep when keep is not nil. The texts of the misses are read through tr
// (nil: a reader of its own).
func checkCachedWith(repo *gitrepo.Repo, tr *gitrepo.TreeReader, target string, docs []Doc, dir string, keep func(cf *cacheFile) error) (reps []Report, writeErr error, err error) {
	keys, err := cacheKeys(repo, target, docs)
	if err != nil {
		return nil, nil, err
	}
	return checkCachedKeys(repo, tr, target, docs, keys, dir, keep)
}

// cacheKeys returns each document's key in the verdict cache (docKey).
func cacheKeys(repo *gitrepo.Repo, target string, docs []Doc) ([]string, error) {
	shallow, err := shallowKey(repo)
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(docs))
	for i, d := range docs {
		keys[i] = docKey(target, shallow, d)
	}
	return keys, nil
}

// shallowKey is the shallow boundary as docKey reads it: the shallow
// commits' ids, sorted, each followed by a space.
func shallowKey(repo *gitrepo.Repo) (string, error) {
	shallowSet, err := repo.Shallow()
	if err != nil {
		return "", err
	}
	var ids []string
	for id := range shallowSet {
		ids = append(ids, id)
	}
	sortStrings(ids)
	shallow := ""
	for _, id := range ids {
		shallow += id + " "
	}
	return shallow, nil
}

// checkCachedKeys is checkCachedWith with the documents' keys computed.
func checkCachedKeys(repo *gitrepo.Repo, tr *gitrepo.TreeReader, target string, docs []Doc, keys []string, dir string, keep func(cf *cacheFile) error) (reps []Report, writeErr error, err error) {
	// A reader that keeps nothing decodes only its documents' reports; a
	// writer needs all of them to write the file again.
	var want map[string]bool
	if keep == nil {
		want = make(map[string]bool, len(keys))
		for _, k := range keys {
			want[k] = true
		}
	}
	path := filepath.Join(dir, "verdicts")
	var cf cacheFile
	var prev cachedElsewhere // another target's file, for carryForward
	if b, rerr := fsx.ReadFile(path); rerr == nil {
		if cf, rerr = decodeCacheFor(b, want); rerr != nil {
			cf = cacheFile{}
		} else if cf.Target != target {
			prev = cachedElsewhere{data: b, target: cf.Target}
			if want == nil {
				prev.reports = cf.Reports // decoded whole already
			}
			cf = cacheFile{}
		}
	}
	if cf.Reports == nil {
		cf = cacheFile{Version: cacheVersion, Target: target, Reports: map[string]Report{}}
	}
	var miss []Doc
	var missAt []int
	reps = make([]Report, len(docs))
	for i, d := range docs {
		if r, ok := cf.Reports[keys[i]]; ok {
			reps[i] = r
			continue
		}
		miss = append(miss, d)
		missAt = append(missAt, i)
	}
	if len(miss) == 0 {
		return reps, nil, nil
	}
	if tr == nil {
		tr = repo.NewTreeReader()
		defer tr.Close()
	}
	if prev.data != nil {
		carried := carryForward(repo, tr, prev, target, miss)
		if len(carried) > 0 {
			var stillMiss []Doc
			var stillAt []int
			for j, d := range miss {
				if r, ok := carried[j]; ok {
					reps[missAt[j]] = r
					cf.Reports[keys[missAt[j]]] = r
					continue
				}
				stillMiss = append(stillMiss, d)
				stillAt = append(stillAt, missAt[j])
			}
			miss, missAt = stillMiss, stillAt
			if len(miss) == 0 {
				if keep == nil {
					return reps, nil, nil
				}
				return reps, keep(&cf), nil
			}
		}
	}
	// As early as the misses are known: the heap is populated while the
	// pages are read and the checker set up.
	prefaultFor(repo, len(miss))
	if err = readTexts(tr, miss); err != nil {
		return nil, nil, err
	}
	got, err := Check(repo, target, miss)
	if err != nil {
		return nil, nil, err
	}
	for j, r := range got {
		reps[missAt[j]] = r
		cf.Reports[keys[missAt[j]]] = r
	}
	if keep == nil {
		return reps, nil, nil
	}
	return reps, keep(&cf), nil
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
