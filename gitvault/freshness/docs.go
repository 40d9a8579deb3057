package freshness

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/git-echoes/git-echoes/gitvault/memory"
	"github.com/git-echoes/git-echoes/internal/gitrepo"
)

// PagesDir and MemoryDir are where the documents live in the repository
// (protocol §5: EchoesVault/pages/*.md; ecc-conformance: .ecc/memory/).
const (
	PagesDir  = "EchoesVault/pages"
	MemoryDir = ".ecc/memory"
)

// TreePages lists the pages of the vault in the tree of commit target:
// the regular .md files directly under EchoesVault/pages/, with their
// text.
func TreePages(repo *gitrepo.Repo, target string) ([]Doc, error) {
	// One TreeReader (the pack reader of history walks) for the tree and
	// every page: go-git's blob reader opened the pack anew for each of
	// them, most of a warm stale run.
	tr := repo.NewTreeReader()
	defer tr.Close()
	docs, err := treePageBlobs(tr, target)
	if err != nil {
		return nil, err
	}
	return docs, readTexts(tr, docs)
}

// treePageBlobs is TreePages without the texts: each Doc has its Blob
// and an empty Text (readTexts fills them). The verdict cache keys a
// committed page by its blob id, so a warm run reads no page.
func treePageBlobs(tr *gitrepo.TreeReader, target string) ([]Doc, error) {
	c, err := tr.CommitHeader(target)
	if err != nil {
		return nil, err
	}
	dir, ok, err := tr.Entry(c.Tree, PagesDir)
	if err != nil || !ok || dir.Mode != filemode.Dir {
		return nil, err
	}
	items, err := tr.Items(dir.Hash)
	if err != nil {
		return nil, err
	}
	// In path order, as the repository-wide listing gave them (a tree
	// sorts a directory as name+"/", which no page is).
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	var out []Doc
	for _, it := range items {
		if !strings.HasSuffix(it.Name, ".md") || it.Mode != filemode.Regular && it.Mode != filemode.Executable {
			continue
		}
		out = append(out, Doc{Path: PagesDir + "/" + it.Name, Blob: it.Hash})
	}
	return out, nil
}

// readTexts reads the text of each document that has a Blob and no Text.
func readTexts(tr *gitrepo.TreeReader, docs []Doc) error {
	for i := range docs {
		d := &docs[i]
		if d.Blob == "" || d.Text != "" {
			continue
		}
		data, err := tr.ReadBlob(d.Blob)
		if err != nil {
			return fmt.Errorf("read %s: %w", d.Path, err)
		}
		d.Text = string(data)
	}
	return nil
}

// TreeMemories lists the valid ECC memories under .ecc/memory/ in the tree
// of commit target (ecc-conformance §6 acceptance; invalid documents are
// the memory doctor's business, not citations).
func TreeMemories(repo *gitrepo.Repo, target string) ([]Doc, error) {
	c, err := repo.CommitInfo(target)
	if err != nil {
		return nil, err
	}
	files, err := repo.TreeFilesAt(c.Tree, MemoryDir)
	if err != nil {
		return nil, err
	}
	var out []Doc
	for _, f := range files {
		if !strings.HasSuffix(f.Path, ".md") || f.Mode != filemode.Regular {
			continue
		}
		data, err := f.Read()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		text, ok := memory.DecodeUTF8Fatal(data)
		if !ok {
			continue
		}
		m, err := memory.ParseDocument(text)
		if err != nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, m.UpdatedAt)
		if err != nil {
			continue
		}
		out = append(out, Doc{Path: f.Path, Text: m.Body, Memory: true, UpdatedAt: at})
	}
	return out, nil
}
