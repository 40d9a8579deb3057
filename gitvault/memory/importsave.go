package memory

import (
	"errors"
	"os"
	"path/filepath"
	"time"
)

// ImportedID is the id of an imported memory (issue 21): "mem_import_"
// followed by 24 lowercase hexadecimal characters the importer derives from
// the source and the content. A content-addressed id makes re-running an
// import idempotent while writes stay create-only (ecc-conformance §9: the
// tool never overwrites an existing id): the same input finds its memory
// already there, a changed input becomes a new memory.
func ImportedID(hex24 string) string { return "mem_import_" + hex24 }

// SaveImported validates, scans and publishes one imported memory under the
// id the importer chose, create-only, exactly as Save does otherwise (trust
// "unreviewed", status "active"). When a memory with that id already exists
// in the scope, nothing is written and existed is true.
func SaveImported(r *Roots, in SaveInput, id string) (res *SaveResult, existed bool, err error) {
	m, err := NewImportedMemory(in, id)
	if err != nil {
		return nil, false, err
	}
	dest := filepath.Join(r.ScopeRoot(m.Scope), m.Kind+"s", m.ID+".md")
	if _, err := os.Lstat(dest); err == nil {
		return &SaveResult{Memory: m, Path: dest}, true, nil
	}
	path, err := publishMemory(r, m)
	if err != nil {
		var me *Error
		if errors.As(err, &me) && me.Code == CodeExists {
			return &SaveResult{Memory: m, Path: dest}, true, nil
		}
		return nil, false, err
	}
	return &SaveResult{Memory: m, Path: path}, false, nil
}

// NewImportedMemory builds the memory SaveImported would write, without
// touching the file system (the importer's dry run).
func NewImportedMemory(in SaveInput, id string) (*Memory, error) {
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	ts := FormatTimestamp(now.UTC())
	raw := rawMemory{
		Schema: Schema, ID: id,
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
