package memory

import (
	"errors"
	"path/filepath"
	"time"

	"github.com/git-echoes/git-echoes/internal/fsx"
)

// SaveInput is a request to create one memory. Empty Kind, Scope and
// SourceHarness take the defaults note, project and unknown; nil
// TargetHarnesses means ["all"]; nil Tags and Links mean none. Values are
// trimmed and validated exactly as the reference does. The id, trust
// ("unreviewed"), status ("active") and timestamps are never chosen by the
// caller.
type SaveInput struct {
	Title           string
	Body            string
	Kind            string
	Scope           string
	SourceHarness   string
	TargetHarnesses []string
	Tags            []string
	Links           []string

	// Now overrides the clock (tests); zero means time.Now().
	Now time.Time
}

// SaveResult is a published memory.
type SaveResult struct {
	Memory *Memory
	// Path is the absolute path of the new file.
	Path string
}

// NewMemory validates in and builds the normalized memory a save would
// write, with a freshly generated id, without touching the filesystem.
// It applies the reference's validation order and messages (ecc-conformance §7) and the
// write-side secret scan (ecc-conformance §10).
func NewMemory(in SaveInput) (*Memory, error) {
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	now = now.UTC()
	u, err := uuidV4()
	if err != nil {
		return nil, &Error{Code: CodeIO, Message: "cannot generate a memory id: " + err.Error(), Err: err}
	}
	ts := FormatTimestamp(now)
	raw := rawMemory{
		Schema: Schema, ID: "mem_" + now.Format("20060102") + "_" + u[:20],
		Title: in.Title, Kind: orDefault(in.Kind, "note"), Scope: orDefault(in.Scope, "project"),
		Trust: "unreviewed", Status: "active", SourceHarness: orDefault(in.SourceHarness, "unknown"),
		TargetHarnesses: in.TargetHarnesses, Tags: in.Tags, Links: in.Links,
		CreatedAt: ts, UpdatedAt: ts, Body: in.Body,
	}
	if in.TargetHarnesses == nil {
		raw.TargetHarnesses = []string{"all"}
	}
	if in.Tags == nil {
		raw.Tags = []string{}
	}
	if in.Links == nil {
		raw.Links = []string{}
	}
	m, err := normalize(raw, true)
	if err != nil {
		return nil, err
	}
	if labels := secretsOnWrite(m); len(labels) > 0 {
		return nil, secretError(labels)
	}
	return m, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Save validates, scans and publishes a new memory create-only at
// <scope root>/<kind>s/<id>.md (ecc-conformance §9). Nothing touches the
// filesystem before validation and the secret scan pass.
func Save(r *Roots, in SaveInput) (*SaveResult, error) {
	m, err := NewMemory(in)
	if err != nil {
		return nil, err
	}
	path, err := publishMemory(r, m)
	if err != nil {
		return nil, err
	}
	return &SaveResult{Memory: m, Path: path}, nil
}

func publishMemory(r *Roots, m *Memory) (string, error) {
	if err := r.checkRootSafety(m.Scope); err != nil {
		return "", err
	}
	root := r.ScopeRoot(m.Scope)
	if err := mkdirAll(root); err != nil {
		return "", err
	}
	// A killed save leaves its ".ecc-memory-<pid>-<uuid>.tmp" behind
	// (ecc-conformance §9.1 removes only a writer's own). The memory vault
	// takes no lock, so the next save into the scope removes such files, in
	// the scope root (its .gitignore) and every kind directory, only once
	// they are fsx.StaleTempAge old: a live save holds its temporary file for
	// milliseconds, and one stalled for longer loses nothing but its own
	// publication, which then fails and is reported. Errors are ignored: the sweep is housekeeping and must never
	// fail a save (a kind directory that is missing or a symlink is skipped).
	_, _ = fsx.RemoveStaleTemps(root, fsx.StaleTempAge, time.Now())
	for _, k := range Kinds {
		_, _ = fsx.RemoveStaleTemps(filepath.Join(root, k+"s"), fsx.StaleTempAge, time.Now())
	}
	if m.Scope == "project" {
		if err := ensureGitignore(root); err != nil {
			return "", err
		}
	}
	dir := filepath.Join(root, m.Kind+"s")
	if err := prepareKindDir(root, dir); err != nil {
		return "", err
	}
	dest := filepath.Join(dir, m.ID+".md")
	if err := publishCreateOnly(root, dest, m.Serialize()); err != nil {
		if errors.Is(err, errDestinationExists) {
			return "", newErr(CodeExists, "Memory "+m.ID+" already exists; writes are create-only.")
		}
		return "", err
	}
	return dest, nil
}

// prepareKindDir refuses a kind directory outside the root or that is a
// symlink, then creates it (ecc-conformance §9 step 6).
func prepareKindDir(root, dir string) error {
	if !within(dir, root) {
		return newErr(CodeUnsafePath, "Refusing to access memory directory outside the install root: '"+dir+"' is not within '"+root+"'.")
	}
	// fsx.IsSymlink: on Windows a junction is refused like a symlink.
	if fsx.IsSymlink(dir) {
		return newErr(CodeUnsafePath, "Refusing to access memory through symlink directory: "+dir)
	}
	return mkdirAll(dir)
}

// GitignoreContent is the exact fail-closed project .gitignore.
const GitignoreContent = gitignoreContents

// ensureGitignore publishes the project .gitignore create-only, or checks
// an existing one byte for byte (ecc-conformance §4.2). Git ignores a symlinked
// .gitignore, so a symlink always fails: one pointing outside the root or
// nowhere (dangling) fails containment, one pointing inside fails the
// no-follow open. The guarded reader's label is the reference's, in lower
// case ("project memory .gitignore must contain valid UTF-8 text."); only
// the rules message starts with a capital.
func ensureGitignore(root string) error {
	path := filepath.Join(root, ".gitignore")
	err := publishCreateOnly(root, path, []byte(gitignoreContents))
	if err == nil {
		return nil
	}
	if !errors.Is(err, errDestinationExists) {
		return err
	}
	text, err := readGuarded(path, "project memory .gitignore", MaxDocumentBytes, root)
	if err != nil {
		return err
	}
	if text != gitignoreContents {
		return newErr(CodeGitignore, "Project memory .gitignore does not contain the required fail-closed rules.")
	}
	return nil
}

// InitResult lists what Init prepared.
type InitResult struct {
	Scopes []string
	// Directories are the absolute kind directories, per scope in order and
	// kinds in their fixed order.
	Directories []string
}

// Init creates the requested scope roots and kind directories (default
// project and team; user only when named), with the project .gitignore
// guard (ecc-conformance §4.1). It is idempotent and never modifies memories.
func Init(r *Roots, scopes []string) (*InitResult, error) {
	scopes, err := ValidateScopes(scopes)
	if err != nil {
		return nil, err
	}
	res := &InitResult{Scopes: scopes, Directories: []string{}}
	for _, s := range scopes {
		if err := r.checkRootSafety(s); err != nil {
			return nil, err
		}
		root := r.ScopeRoot(s)
		if err := mkdirAll(root); err != nil {
			return nil, err
		}
		if s == "project" {
			if err := ensureGitignore(root); err != nil {
				return nil, err
			}
		}
		for _, k := range Kinds {
			dir := filepath.Join(root, k+"s")
			if err := prepareKindDir(root, dir); err != nil {
				return nil, err
			}
			res.Directories = append(res.Directories, dir)
		}
	}
	return res, nil
}
