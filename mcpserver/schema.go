package mcpserver

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/pyjson"
)

// The tools' input schemas are JSON texts (the memory tools' are exactly
// ecc-conformance §17.4) validated by the small interpreter below rather than
// by the SDK's typed AddTool. Two reasons: ecc-conformance §17.5 fixes the error text as
// "<instance path> <keyword>" for the first three problems, and the SDK's
// validator quotes the offending argument values in its messages, which
// would echo a rejected secret back to the client (ecc-conformance §17.6: no secret values
// in errors). The interpreter covers exactly the keywords our schemas use.

// schemaProblem is one validation failure: where and which keyword.
type schemaProblem struct {
	Path    string // JSON pointer of the instance, "/" for the root
	Keyword string
}

func (p schemaProblem) String() string { return p.Path + " " + p.Keyword }

var (
	patternMu    sync.Mutex
	patternCache = map[string]*regexp.Regexp{}
)

// compiledPattern compiles a schema pattern once. Our patterns are fixed
// ASCII classes, where RE2 and ECMAScript agree.
func compiledPattern(p string) (*regexp.Regexp, error) {
	patternMu.Lock()
	defer patternMu.Unlock()
	if re, ok := patternCache[p]; ok {
		return re, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, fmt.Errorf("schema pattern %q: %w", p, err)
	}
	patternCache[p] = re
	return re, nil
}

// checkSchema verifies that a schema text parses and that every keyword in
// it is one validate understands, so that a typo in a schema fails the
// server's construction instead of silently accepting everything.
func checkSchema(s pyjson.Value) error {
	if s.Kind != pyjson.Object {
		return fmt.Errorf("schema is not an object")
	}
	for _, k := range s.Obj.Keys() {
		v, _ := s.Obj.Get(k)
		switch k {
		case "type", "description", "default", "enum", "const", "required", "additionalProperties",
			"minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "uniqueItems":
		case "pattern":
			if _, err := compiledPattern(v.S); err != nil {
				return err
			}
		case "properties":
			for _, name := range v.Obj.Keys() {
				sub, _ := v.Obj.Get(name)
				if err := checkSchema(sub); err != nil {
					return fmt.Errorf("property %s: %w", name, err)
				}
			}
		case "items":
			if err := checkSchema(v); err != nil {
				return fmt.Errorf("items: %w", err)
			}
		default:
			return fmt.Errorf("unsupported schema keyword %q", k)
		}
	}
	return nil
}

// validate collects every problem of inst against schema s, in the order a
// standard validator reports them: type first, then the object's required
// and additional properties, then each declared property in schema order;
// an array's size, then its items, then uniqueness.
func validate(s, inst pyjson.Value, path string, out *[]schemaProblem) {
	at := path
	if at == "" {
		at = "/"
	}
	add := func(kw string) { *out = append(*out, schemaProblem{at, kw}) }
	get := func(k string) (pyjson.Value, bool) { return s.Obj.Get(k) }
	if t, ok := get("type"); ok && !hasType(inst, t.S) {
		add("type")
		return
	}
	if c, ok := get("const"); ok && !pyjson.Equal(c, inst) {
		add("const")
	}
	switch inst.Kind {
	case pyjson.Object:
		if req, ok := get("required"); ok {
			for _, name := range req.Arr {
				if !inst.Obj.Has(name.S) {
					add("required")
				}
			}
		}
		props, _ := get("properties")
		if ap, ok := get("additionalProperties"); ok && ap.Kind == pyjson.Bool && !ap.B {
			for _, k := range inst.Obj.Keys() {
				if !props.Obj.Has(k) {
					add("additionalProperties")
				}
			}
		}
		for _, name := range props.Obj.Keys() {
			if v, ok := inst.Obj.Get(name); ok {
				sub, _ := props.Obj.Get(name)
				validate(sub, v, path+"/"+escapePointer(name), out)
			}
		}
	case pyjson.String:
		n := utf8.RuneCountInString(inst.S) // JSON Schema counts code points
		if m, ok := get("minLength"); ok && n < intOf(m) {
			add("minLength")
		}
		if m, ok := get("maxLength"); ok && n > intOf(m) {
			add("maxLength")
		}
		if p, ok := get("pattern"); ok {
			if re, err := compiledPattern(p.S); err != nil || !re.MatchString(inst.S) {
				add("pattern")
			}
		}
	case pyjson.Number:
		f := inst.Num.Float64()
		if m, ok := get("minimum"); ok && f < m.Num.Float64() {
			add("minimum")
		}
		if m, ok := get("maximum"); ok && f > m.Num.Float64() {
			add("maximum")
		}
	case pyjson.Array:
		if m, ok := get("minItems"); ok && len(inst.Arr) < intOf(m) {
			add("minItems")
		}
		if m, ok := get("maxItems"); ok && len(inst.Arr) > intOf(m) {
			add("maxItems")
		}
		if items, ok := get("items"); ok {
			for i, v := range inst.Arr {
				validate(items, v, fmt.Sprintf("%s/%d", path, i), out)
			}
		}
		if u, ok := get("uniqueItems"); ok && u.B && !unique(inst.Arr) {
			add("uniqueItems")
		}
	}
	if e, ok := get("enum"); ok {
		found := false
		for _, v := range e.Arr {
			found = found || pyjson.Equal(v, inst)
		}
		if !found {
			add("enum")
		}
	}
}

func hasType(v pyjson.Value, t string) bool {
	switch t {
	case "object":
		return v.Kind == pyjson.Object
	case "array":
		return v.Kind == pyjson.Array
	case "string":
		return v.Kind == pyjson.String
	case "boolean":
		return v.Kind == pyjson.Bool
	case "number":
		return v.Kind == pyjson.Number && !math.IsNaN(v.Num.Float64()) && !math.IsInf(v.Num.Float64(), 0)
	case "integer":
		// Any whole number is an integer to JSON Schema, 2.0 included.
		if v.Kind != pyjson.Number {
			return false
		}
		if v.Num.IsInt {
			return true
		}
		f := v.Num.F
		return !math.IsInf(f, 0) && f == math.Trunc(f)
	}
	return false
}

func intOf(v pyjson.Value) int {
	n, _ := v.Num.Int64()
	return int(n)
}

func unique(vs []pyjson.Value) bool {
	for i := range vs {
		for j := i + 1; j < len(vs); j++ {
			if pyjson.Equal(vs[i], vs[j]) {
				return false
			}
		}
	}
	return true
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// describeProblems renders the ecc-conformance §17.5 problem list: the first three problems
// joined by ", ".
func describeProblems(ps []schemaProblem) string {
	parts := make([]string, 0, 3)
	for i, p := range ps {
		if i == 3 {
			break
		}
		parts = append(parts, p.String())
	}
	return strings.Join(parts, ", ")
}
