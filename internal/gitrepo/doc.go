// Package gitrepo is a small, vault-agnostic Git access layer.
//
// It answers the questions the engine asks of a repository without running a
// git subprocess: which work tree contains a directory (Discover), which paths
// the index holds (IndexPaths), whether git's exclude rules match a path
// (Ignored), which files are untracked (Untracked), what is staged
// (StagedFiles) and what a revision contains (TreeFiles).
//
// Objects and references are read through go-git. The index file, the config
// files and the exclude rules are read by this package itself, because go-git
// v5 gets them wrong in ways that matter here: it refuses every repository
// that declares an extension (even worktreeConfig), rejects indexes written
// with index.skipHash, silently ignores the split-index "link" extension,
// drops .git/info/exclude in some code paths, keeps a UTF-8 BOM as part of
// the first .gitignore pattern and lets a negation re-include a file below an
// excluded directory. The matcher here is a port of git's dir.c and
// wildmatch.c semantics (gitignore(5)); tests compare it with the real git.
//
// Repositories this package cannot read faithfully (SHA-256 objects, split
// or sparse indexes, reftable, unknown extensions) are refused with an error
// wrapping ErrUnsupported rather than answered wrongly.
package gitrepo
