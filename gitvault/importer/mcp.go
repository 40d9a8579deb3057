package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The knowledge graph of @modelcontextprotocol/server-memory: memory.jsonl
// holds one JSON object per line, an entity
//
//	{"type":"entity","name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish"]}
//
// or a relation
//
//	{"type":"relation","from":"John_Smith","to":"Anthropic","relationType":"works_at"}
//
// (the server's saveGraph writes exactly these keys). Newer servers also
// accept lines without "type"; we do not: a record we cannot classify is
// refused with its line number, never guessed at.

// Entity is one entity of the graph.
type Entity struct {
	Name         string
	EntityType   string
	Observations []string
	Line         int // first line that defines it
}

// Relation is one directed, named edge.
type Relation struct {
	From, To, RelationType string
	Line                   int
}

// Graph is a parsed memory.jsonl.
type Graph struct {
	Entities  []Entity // in file order, one per name
	Relations []Relation
	// Notes are non-fatal findings (a duplicated entity merged, a
	// duplicated relation dropped).
	Notes []Problem
}

type rawRecord struct {
	Type         *string   `json:"type"`
	Name         *string   `json:"name"`
	EntityType   *string   `json:"entityType"`
	Observations *[]string `json:"observations"`
	From         *string   `json:"from"`
	To           *string   `json:"to"`
	RelationType *string   `json:"relationType"`
}

// ParseJSONL parses a memory.jsonl. Every malformed line (truncated JSON,
// an unknown record type, a missing or mistyped field, a line longer than
// MaxLineBytes, invalid UTF-8) is reported by line; any of them refuses the
// whole file.
func ParseJSONL(file string, data []byte) (*Graph, error) {
	g := &Graph{}
	var problems []Problem
	bad := func(line int, format string, args ...any) {
		if len(problems) < 100 {
			problems = append(problems, Problem{File: file, Line: line, Message: fmt.Sprintf(format, args...)})
		}
	}
	byName := map[string]int{}
	relSeen := map[[3]string]bool{}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for n, rest := 1, data; len(rest) > 0; n++ {
		var line []byte
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			line, rest = rest, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if len(line) > MaxLineBytes {
			bad(n, "record is longer than %d bytes", MaxLineBytes)
			continue
		}
		if !utf8.Valid(line) {
			bad(n, "record is not valid UTF-8")
			continue
		}
		var r rawRecord
		dec := json.NewDecoder(bytes.NewReader(line))
		if err := dec.Decode(&r); err != nil {
			bad(n, "not a JSON object (truncated or malformed record): %s", jsonDetail(err))
			continue
		}
		if dec.More() {
			bad(n, "more than one JSON value on the line")
			continue
		}
		if r.Type == nil {
			bad(n, `record has no "type" (expected "entity" or "relation")`)
			continue
		}
		switch *r.Type {
		case "entity":
			if r.Name == nil || strings.TrimSpace(*r.Name) == "" {
				bad(n, `entity has no "name"`)
				continue
			}
			if r.EntityType == nil {
				bad(n, `entity %q has no "entityType"`, *r.Name)
				continue
			}
			var obs []string
			if r.Observations != nil {
				obs = *r.Observations
			}
			if i, ok := byName[*r.Name]; ok {
				e := &g.Entities[i]
				have := map[string]bool{}
				for _, o := range e.Observations {
					have[o] = true
				}
				for _, o := range obs {
					if !have[o] {
						e.Observations = append(e.Observations, o)
						have[o] = true
					}
				}
				g.Notes = append(g.Notes, Problem{File: file, Line: n, Message: fmt.Sprintf("entity %q is defined again (first on line %d): observations merged", *r.Name, e.Line)})
				continue
			}
			byName[*r.Name] = len(g.Entities)
			g.Entities = append(g.Entities, Entity{Name: *r.Name, EntityType: *r.EntityType, Observations: obs, Line: n})
		case "relation":
			if r.From == nil || r.To == nil || r.RelationType == nil || *r.From == "" || *r.To == "" || strings.TrimSpace(*r.RelationType) == "" {
				bad(n, `relation needs non-empty "from", "to" and "relationType"`)
				continue
			}
			key := [3]string{*r.From, *r.To, *r.RelationType}
			if relSeen[key] {
				g.Notes = append(g.Notes, Problem{File: file, Line: n, Message: "relation repeated: dropped"})
				continue
			}
			relSeen[key] = true
			g.Relations = append(g.Relations, Relation{From: *r.From, To: *r.To, RelationType: *r.RelationType, Line: n})
		default:
			bad(n, `unknown record type %q (expected "entity" or "relation")`, *r.Type)
		}
	}
	if len(problems) > 0 {
		return nil, &Error{Msg: fmt.Sprintf("Cannot import %s: %d malformed record(s); nothing was written.", file, len(problems)), Problems: problems}
	}
	return g, nil
}

func jsonDetail(err error) string {
	s := err.Error()
	if s == "unexpected EOF" {
		return "unexpected end of the line"
	}
	return strings.TrimPrefix(s, "json: ")
}
