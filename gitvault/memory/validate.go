package memory

import (
	"slices"
	"strings"

	"github.com/git-echoes/git-echoes/internal/jstext"
)

// rawMemory holds unvalidated field values: JSON-decoded values when read
// from disk, plain Go strings and slices when supplied by a caller.
type rawMemory struct {
	Schema, ID, Title, Kind, Scope, Trust, Status, SourceHarness any
	TargetHarnesses, Tags, Links                                 any
	CreatedAt, UpdatedAt, Body                                   any
}

// normalize validates r in the reference's order (first failure wins) and
// returns the trimmed values. forWrite additionally refuses lone
// surrogates, which the reference accepts (a quirk we do not reproduce on
// write but must accept on read).
func normalize(r rawMemory, forWrite bool) (*Memory, error) {
	v := validator{forWrite: forWrite}
	m := &Memory{}
	var err error
	if m.TargetHarnesses, err = v.slugArray("target harnesses", "target harness", r.TargetHarnesses, MaxTargets, true); err != nil {
		return nil, err
	}
	if s, ok := r.Schema.(string); !ok || s != Schema {
		return nil, invalid("Unsupported memory schema.")
	}
	m.Schema = Schema
	if m.ID, err = v.id(r.ID); err != nil {
		return nil, err
	}
	if m.Title, err = v.nonEmpty("memory title", r.Title, MaxTitleUnits); err != nil {
		return nil, err
	}
	if m.Kind, err = v.enum("memory kind", r.Kind, Kinds); err != nil {
		return nil, err
	}
	if m.Scope, err = v.enum("memory scope", r.Scope, Scopes); err != nil {
		return nil, err
	}
	if m.Trust, err = v.enum("memory trust", r.Trust, trustValues); err != nil {
		return nil, err
	}
	if m.Status, err = v.enum("memory status", r.Status, statusValues); err != nil {
		return nil, err
	}
	if m.SourceHarness, err = v.slug("source harness", r.SourceHarness); err != nil {
		return nil, err
	}
	if m.Tags, err = v.slugArray("tags", "tag", r.Tags, MaxTags, false); err != nil {
		return nil, err
	}
	if m.Links, err = v.idArray(r.Links); err != nil {
		return nil, err
	}
	if m.CreatedAt, err = v.timestamp("created_at", r.CreatedAt); err != nil {
		return nil, err
	}
	if m.UpdatedAt, err = v.timestamp("updated_at", r.UpdatedAt); err != nil {
		return nil, err
	}
	if m.Body, err = v.body(r.Body); err != nil {
		return nil, err
	}
	return m, nil
}

type validator struct{ forWrite bool }

// nonEmpty is the reference's "non-empty string" check: trim, length in
// UTF-16 units, then unsafe characters on the trimmed value.
func (v validator) nonEmpty(label string, x any, max int) (string, error) {
	s, ok := x.(string)
	if !ok || jstext.Trim(s) == "" {
		return "", invalid(label + " must be a non-empty string.")
	}
	s = jstext.Trim(s)
	if jstext.UnitLen(s) > max {
		return "", invalid(label + " is too long (maximum " + itoa(max) + " characters).")
	}
	if hasUnsafe(s, false) || (v.forWrite && jstext.HasLoneSurrogate(s)) {
		return "", invalid(label + " must not contain control or bidirectional formatting characters.")
	}
	return s, nil
}

func (v validator) enum(label string, x any, values []string) (string, error) {
	s, err := v.nonEmpty(label, x, MaxSlugUnits)
	if err != nil {
		return "", err
	}
	for _, e := range values {
		if s == e {
			return s, nil
		}
	}
	return "", invalid(label + " must be one of: " + strings.Join(values, ", ") + ".")
}

func (v validator) slug(label string, x any) (string, error) {
	s, err := v.nonEmpty(label, x, MaxSlugUnits)
	if err != nil {
		return "", err
	}
	if !isSlug(s) {
		return "", invalid(label + " must be a lowercase letters/numbers slug.")
	}
	return s, nil
}

func (v validator) id(x any) (string, error) {
	s, err := v.nonEmpty("memory id", x, MaxIDUnits)
	if err != nil {
		return "", err
	}
	if !isID(s) {
		return "", invalid("memory id must match mem_<lowercase-id> and cannot contain a path.")
	}
	return s, nil
}

func (v validator) timestamp(label string, x any) (string, error) {
	s, err := v.nonEmpty(label, x, MaxSlugUnits)
	if err != nil {
		return "", err
	}
	if !validTimestamp(s) {
		return "", invalid(label + " must be an ISO-8601 timestamp.")
	}
	return s, nil
}

func (v validator) body(x any) (string, error) {
	s, ok := x.(string)
	if !ok {
		return "", invalid("memory body must be a string.")
	}
	if hasUnsafe(s, true) || (v.forWrite && jstext.HasLoneSurrogate(s)) {
		return "", invalid("memory body must not contain unsafe control or bidirectional formatting characters.")
	}
	s = jstext.Trim(s)
	if s == "" {
		return "", invalid("memory body must contain non-whitespace context.")
	}
	if len(s) > MaxBodyBytes {
		return "", invalid("memory body is too large (maximum 65536 bytes).")
	}
	return s, nil
}

// asArray accepts JSON-decoded arrays and Go string slices.
func asArray(x any) ([]any, bool) {
	switch a := x.(type) {
	case []any:
		return a, true
	case []string:
		out := make([]any, len(a))
		for i, s := range a {
			out[i] = s
		}
		return out, true
	}
	return nil, false
}

func (v validator) array(label string, x any, max int, item func(any) (string, error)) ([]string, error) {
	a, ok := asArray(x)
	if !ok {
		return nil, invalid(label + " must be an array.")
	}
	if len(a) > max {
		return nil, invalid(label + " has too many values (maximum " + itoa(max) + ").")
	}
	out := make([]string, 0, len(a))
	// Arrays are capped at a few dozen values: a scan of the values kept
	// so far finds duplicates without allocating a set.
	for _, e := range a {
		s, err := item(e)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, s) {
			return nil, invalid(label + " must not contain duplicate values.")
		}
		out = append(out, s)
	}
	return out, nil
}

func (v validator) slugArray(label, itemLabel string, x any, max int, needOne bool) ([]string, error) {
	if a, ok := asArray(x); ok && needOne && len(a) == 0 {
		return nil, invalid(`target harnesses must contain at least one harness or "all".`)
	}
	return v.array(label, x, max, func(e any) (string, error) { return v.slug(itemLabel, e) })
}

func (v validator) idArray(x any) ([]string, error) {
	return v.array("links", x, MaxLinks, v.id)
}

// ValidateID normalizes and checks a memory id as read and the CLI do
// (trimmed, then ^mem_[a-z0-9][a-z0-9_-]{2,127}$).
func ValidateID(id string) (string, error) { return validator{forWrite: true}.id(id) }

// ValidateSlug normalizes and checks a harness, target or tag slug with
// the given message label (for example "target harness").
func ValidateSlug(label, s string) (string, error) {
	return validator{forWrite: true}.slug(label, s)
}

// ValidateScopes checks a scope list (at most 3, unique, each an enum
// member) and returns the normalized list; nil (no list given) gives
// DefaultScopes, and an empty list stays empty: it names no scope, so
// nothing is scanned, as the reference does with "scopes": [].
func ValidateScopes(scopes []string) ([]string, error) {
	if scopes == nil {
		return append([]string(nil), DefaultScopes...), nil
	}
	if len(scopes) == 0 {
		return []string{}, nil
	}
	v := validator{forWrite: true}
	return v.array("scopes", scopes, len(Scopes), func(e any) (string, error) { return v.enum("memory scope", e, Scopes) })
}

// ValidateKinds checks a kinds filter (at most 8, unique, each a kind).
func ValidateKinds(kinds []string) ([]string, error) {
	if kinds == nil {
		return nil, nil
	}
	v := validator{forWrite: true}
	return v.array("kinds", kinds, len(Kinds), func(e any) (string, error) { return v.enum("memory kind", e, Kinds) })
}
