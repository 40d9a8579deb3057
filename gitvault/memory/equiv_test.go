package memory

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-echoes/git-echoes/internal/jsjson"
	"github.com/git-echoes/git-echoes/internal/jstext"
)

// The hand-written scanners that replaced hot regular expressions are
// checked here against the original expressions, over the fuzz corpora,
// the fixture vaults, the shared seeds and generated inputs.

var (
	refClosingRe = regexp.MustCompile(`\r?\n---(?:\r?\n|$)`)
	refLineSplit = regexp.MustCompile(`\r?\n`)
)

// equivInputs returns every text the differential tests run over.
// The expressions isSlug, isID and isTimestampShape implement (model.go).
var (
	slugRe      = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	idRe        = regexp.MustCompile(`^mem_[a-z0-9][a-z0-9_-]{2,127}$`)
	timestampRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
)

func equivInputs(t *testing.T) []string {
	t.Helper()
	var in []string
	add := func(s string) {
		in = append(in, s)
		// Also as the part after an opening line, and with CRLF endings.
		in = append(in, strings.ReplaceAll(s, "\n", "\r\n"))
		if rest, ok := strings.CutPrefix(s, "---\n"); ok {
			in = append(in, rest)
		}
	}
	for _, dir := range []string{"testdata/fuzz/FuzzParseDocument", "../../internal/jsjson/testdata/fuzz/FuzzParseJSON", "testdata/fuzz/FuzzTokenize"} {
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			raw, err := os.ReadFile(filepath.Join(dir, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(raw), "\n") {
				if v, ok := strings.CutPrefix(line, "string("); ok {
					if s, err := strconv.Unquote(strings.TrimSuffix(v, ")")); err == nil {
						add(s)
					}
				}
			}
		}
	}
	for _, root := range []string{"testdata/reference", "testdata/broken", "/work/shared/seeds"} {
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if raw, err := os.ReadFile(p); err == nil {
					add(string(raw))
				}
			}
			return nil
		})
	}
	add(string(workedExample().Serialize()))
	for _, s := range []string{"", "\n", "\r", "\r\n", "---", "\n---", "\r\n---", "\n---\r", "\n---\r\n", "\n---\n",
		"\n---NOT\n---\n", "\r\r\n---\r\r\n", "a\r\rb\r\n\nc\n", "\n----\n", "x\n--\n---"} {
		add(s)
	}
	rng := rand.New(rand.NewSource(1))
	alphabet := []string{"\r", "\n", "-", "---", "a", ":", " ", "\r\n", "\n---", "é"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.Intn(24); n > 0; n-- {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		in = append(in, b.String())
	}
	return in
}

func TestFindClosingMatchesRegexp(t *testing.T) {
	for _, s := range equivInputs(t) {
		want := -1
		if loc := refClosingRe.FindStringIndex(s); loc != nil {
			want = loc[0]
		}
		if got := findClosing(s); got != want {
			t.Fatalf("findClosing(%q) = %d, regexp gives %d", s, got, want)
		}
	}
}

func TestNextLineMatchesRegexpSplit(t *testing.T) {
	for _, s := range equivInputs(t) {
		want := refLineSplit.Split(s, -1)
		var got []string
		for rest, more := s, true; more; {
			var line string
			line, rest, more = nextLine(rest)
			got = append(got, line)
		}
		if strings.Join(got, "\x00|") != strings.Join(want, "\x00|") || len(got) != len(want) {
			t.Fatalf("lines of %q: got %q, regexp gives %q", s, got, want)
		}
	}
}

// parseDocumentRegexp is ParseDocument as it was before the hand-written
// scanners, kept as the reference for TestParseDocumentMatchesRegexpVersion.
func parseDocumentRegexp(text string) (*Memory, error) {
	var open int
	switch {
	case strings.HasPrefix(text, "---\n"):
		open = 4
	case strings.HasPrefix(text, "---\r\n"):
		open = 5
	default:
		return nil, &Error{Code: CodeInvalid, Message: "memory document must start with frontmatter.", Err: errDocument}
	}
	if len(text) > MaxDocumentBytes {
		return nil, &Error{Code: CodeInvalid, Message: "memory document is too large.", Err: errDocument}
	}
	rest := text[open:]
	loc := refClosingRe.FindStringIndex(rest)
	if loc == nil {
		return nil, &Error{Code: CodeInvalid, Message: "memory document frontmatter is not closed.", Err: errDocument}
	}
	values := make(map[string]any, len(frontmatterKeys))
	for _, line := range refLineSplit.Split(rest[:loc[0]], -1) {
		colon := strings.IndexByte(line, ':')
		if colon <= 0 {
			return nil, &Error{Code: CodeInvalid, Message: "memory frontmatter line is malformed.", Err: errDocument}
		}
		key := jstext.Trim(line[:colon])
		if !isFrontmatterKey(key) {
			return nil, &Error{Code: CodeInvalid, Message: "memory frontmatter key is not supported.", Err: errDocument}
		}
		if _, dup := values[key]; dup {
			return nil, &Error{Code: CodeInvalid, Message: "memory frontmatter key is repeated.", Err: errDocument}
		}
		v, err := jsjson.Parse(jstext.Trim(line[colon+1:]))
		if err != nil {
			return nil, &Error{Code: CodeInvalid, Message: "memory frontmatter value is not JSON.", Err: err}
		}
		values[key] = v
	}
	for _, k := range frontmatterKeys {
		if _, ok := values[k]; !ok {
			return nil, &Error{Code: CodeInvalid, Message: "memory frontmatter is missing " + k + ".", Err: errDocument}
		}
	}
	body := rest[loc[0]:]
	body = body[strings.Index(body, "---")+3:]
	body = trimOneLineBreak(body)
	return normalize(rawMemory{
		Schema: values["schema"], ID: values["id"], Title: values["title"], Kind: values["kind"],
		Scope: values["scope"], Trust: values["trust"], Status: values["status"],
		SourceHarness: values["source_harness"], TargetHarnesses: values["target_harnesses"],
		Tags: values["tags"], Links: values["links"], CreatedAt: values["created_at"],
		UpdatedAt: values["updated_at"], Body: body,
	}, false)
}

func TestParseDocumentMatchesRegexpVersion(t *testing.T) {
	inputs := equivInputs(t)
	// Documents with frontmatter variations around the closing marker.
	base := string(workedExample().Serialize())
	for _, mut := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
		func(s string) string { return strings.Replace(s, "\n---\n", "\r\n---\r\n", 1) },
		func(s string) string { return strings.Replace(s, "\n---\n", "\n---NOT\n---\n", 1) },
		func(s string) string { return strings.Replace(s, "title:", "\ntitle:", 1) },
		func(s string) string { return strings.Replace(s, "title:", " title :", 1) },
		func(s string) string { return strings.Replace(s, "\r\n", "\n", -1) + "\n---\n" },
		func(s string) string { return strings.TrimSuffix(s, "\n") },
		func(s string) string { return s[:strings.LastIndex(s, "\n---")+4] },
		func(s string) string { return s[:strings.LastIndex(s, "\n---")+4] + "\r" },
	} {
		inputs = append(inputs, mut(base), "\uFEFF"+mut(base))
	}
	// Every frontmatter line deleted, doubled or renamed in turn.
	lines := strings.Split(base, "\n")
	for i := 1; i < len(lines) && lines[i] != "---"; i++ {
		del := append(append([]string{}, lines[:i]...), lines[i+1:]...)
		dup := append(append([]string{}, lines[:i+1]...), lines[i:]...)
		ren := append([]string{}, lines...)
		ren[i] = "x" + ren[i]
		inputs = append(inputs, strings.Join(del, "\n"), strings.Join(dup, "\n"), strings.Join(ren, "\n"))
	}
	accepted := 0
	for _, s := range inputs {
		for _, text := range []string{s, "---\n" + s, "---\r\n" + s} {
			got, gerr := ParseDocument(text)
			want, werr := parseDocumentRegexp(text)
			if (gerr == nil) != (werr == nil) {
				t.Fatalf("%q: error %v, regexp version %v", text, gerr, werr)
			}
			if gerr != nil {
				if gerr.Error() != werr.Error() {
					t.Fatalf("%q: error %q, regexp version %q", text, gerr, werr)
				}
				continue
			}
			if jsjson.MarshalCompact(got.Full()) != jsjson.MarshalCompact(want.Full()) {
				t.Fatalf("%q: parsed memories differ", text)
			}
			accepted++
		}
	}
	if accepted < 5 {
		t.Fatalf("only %d inputs were accepted; the comparison is too weak", accepted)
	}
}

const hexDigits = "0123456789abcdef"

// writeJSONStringRef is jsjson.WriteString before its bulk-copy fast path.
func writeJSONStringRef(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\b':
				b.WriteString(`\b`)
			case '\t':
				b.WriteString(`\t`)
			case '\n':
				b.WriteString(`\n`)
			case '\f':
				b.WriteString(`\f`)
			case '\r':
				b.WriteString(`\r`)
			default:
				if c < 0x20 {
					b.WriteString(`\u00`)
					b.WriteByte(hexDigits[c>>4])
					b.WriteByte(hexDigits[c&0xF])
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		if cu, ok := jstext.LoneSurrogateAt(s, i); ok {
			b.WriteString(`\u`)
			b.WriteByte(hexDigits[cu>>12])
			b.WriteByte(hexDigits[cu>>8&0xF])
			b.WriteByte(hexDigits[cu>>4&0xF])
			b.WriteByte(hexDigits[cu&0xF])
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

func TestWriteJSONStringMatchesReference(t *testing.T) {
	inputs := equivInputs(t)
	rng := rand.New(rand.NewSource(2))
	pieces := []string{"a", "Z", " ", "\"", "\\", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f", "é", "😀",
		"\xed\xa0\x80", "\xed\xbf\xbf", "\xff", "\xc3", "\u2028", "\uFEFF", "sk-", "abc def"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.Intn(16); n > 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		inputs = append(inputs, b.String())
	}
	for _, s := range inputs {
		var got, want strings.Builder
		jsjson.WriteString(&got, s)
		writeJSONStringRef(&want, s)
		if got.String() != want.String() {
			t.Fatalf("%q: %q, reference %q", s, got.String(), want.String())
		}
	}
}

func TestScanFormMatchesMarshalCompact(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	pieces := []string{"a", " ", "\"", "\\", "\n", "\r\n", "\t", "é", "\xed\xa0\x80", "sk-", "_", "-"}
	rnd := func() string {
		var b strings.Builder
		for n := rng.Intn(10); n > 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return b.String()
	}
	list := func() []string {
		switch rng.Intn(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		out := make([]string, rng.Intn(4)+1)
		for i := range out {
			out[i] = rnd()
		}
		return out
	}
	for i := 0; i < 5000; i++ {
		m := &Memory{Schema: rnd(), ID: rnd(), Title: rnd(), Kind: rnd(), Scope: rnd(), Trust: rnd(), Status: rnd(),
			SourceHarness: rnd(), TargetHarnesses: list(), Tags: list(), Links: list(), CreatedAt: rnd(), UpdatedAt: rnd(), Body: rnd()}
		if got, want := scanForm(m), jsjson.MarshalCompact(m.Full()); got != want {
			t.Fatalf("scanForm %q, MarshalCompact %q", got, want)
		}
	}
	if m := workedExample(); scanForm(m) != jsjson.MarshalCompact(m.Full()) {
		t.Fatal("worked example differs")
	}
}

func TestShapeMatchersMatchRegexps(t *testing.T) {
	inputs := equivInputs(t)
	rng := rand.New(rand.NewSource(4))
	const chars = "amz09_-.:TZ A\n\xc3é"
	for _, seed := range []string{"mem_20260726_01k123example", "codex", "a", "2026-07-26T20:00:00.000Z", "mem_abc", "mem_ab"} {
		inputs = append(inputs, seed, seed+"\n", "\n"+seed, seed+"x", seed[:len(seed)-1])
		for i := 0; i < 3000; i++ {
			b := []byte(seed)
			for n := rng.Intn(3) + 1; n > 0; n-- {
				switch k := rng.Intn(len(b) + 1); rng.Intn(3) {
				case 0:
					if k < len(b) {
						b[k] = chars[rng.Intn(len(chars))]
					}
				case 1:
					b = append(b[:k], append([]byte{chars[rng.Intn(len(chars))]}, b[k:]...)...)
				case 2:
					if k < len(b) {
						b = append(b[:k], b[k+1:]...)
					}
				}
			}
			inputs = append(inputs, string(b))
		}
	}
	for n := 0; n <= 140; n++ {
		inputs = append(inputs, strings.Repeat("a", n), "mem_"+strings.Repeat("a", n), "9"+strings.Repeat("-", n))
	}
	for _, s := range inputs {
		if isSlug(s) != slugRe.MatchString(s) || isID(s) != idRe.MatchString(s) || isTimestampShape(s) != timestampRe.MatchString(s) {
			t.Fatalf("%q: slug %v/%v id %v/%v timestamp %v/%v", s, isSlug(s), slugRe.MatchString(s),
				isID(s), idRe.MatchString(s), isTimestampShape(s), timestampRe.MatchString(s))
		}
	}
}

func TestValidTimestampMatchesParse(t *testing.T) {
	for _, y := range []string{"0000", "0001", "0004", "0100", "1600", "1900", "1970", "2000", "2023", "2024", "2100", "2400", "9996", "9999"} {
		for mo := 0; mo <= 13; mo++ {
			for d := 0; d <= 32; d++ {
				for _, hms := range []string{"00:00:00", "23:59:59", "24:00:00", "12:60:00", "12:00:60", "99:99:99", "09:05:07"} {
					for _, ms := range []string{"000", "999"} {
						s := fmt.Sprintf("%s-%02d-%02dT%s.%sZ", y, mo, d, hms, ms)
						if validTimestamp(s) != validTimestampByParse(s) {
							t.Fatalf("%s: %v, by parse %v", s, validTimestamp(s), validTimestampByParse(s))
						}
					}
				}
			}
		}
	}
	for _, s := range equivInputs(t) {
		if validTimestamp(s) != validTimestampByParse(s) {
			t.Fatalf("%q differs", s)
		}
	}
}

// isFrontmatterKey is the membership test parseDocumentRegexp used.
func isFrontmatterKey(k string) bool {
	for _, f := range []string{"schema", "id", "title", "kind", "scope", "trust", "status",
		"source_harness", "target_harnesses", "tags", "links", "created_at", "updated_at"} {
		if k == f {
			return true
		}
	}
	return false
}

// TestRankTopMatchesSliceStable compares rankTop with the sort and cut it
// replaced, over ties of every key and non-timestamp updatedAt values.
func TestRankTopMatchesSliceStable(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	updated := []string{"2026-07-26T20:00:00.000Z", "2026-07-26T20:00:00.001Z", "2025-12-31T23:59:59.999Z",
		"2026-07-27T00:00:00.000Z", "x", "2026-07-26", "Zebra", "éclair", "2026-07-26T20:00:00.000Z "}
	ids := []string{"mem_a", "mem_b", "mem_a1", "mem_a-b", "mem_a_b", "mem_A", "mem_é", "mem_a.b", "mem_z"}
	for round := 0; round < 1000; round++ {
		n := rng.Intn(80)
		results := make([]SearchResult, n)
		for i := range results {
			results[i] = SearchResult{Score: rng.Intn(4), Path: fmt.Sprint(i),
				Memory: &Memory{UpdatedAt: updated[rng.Intn(len(updated))], ID: ids[rng.Intn(len(ids))]}}
		}
		want := append([]SearchResult(nil), results...)
		sort.SliceStable(want, func(i, j int) bool {
			a, b := want[i], want[j]
			if a.Score != b.Score {
				return a.Score > b.Score
			}
			if c := localeCompare(a.Memory.UpdatedAt, b.Memory.UpdatedAt); c != 0 {
				return c > 0
			}
			return localeCompare(a.Memory.ID, b.Memory.ID) < 0
		})
		for _, limit := range []int{1, 2, 3, 5, 20, n - 1, n, n + 1, 100} {
			if limit < 1 {
				continue
			}
			got := rankTop(append([]SearchResult(nil), results...), limit)
			if len(got) != min(limit, n) {
				t.Fatalf("round %d limit %d: %d results", round, limit, len(got))
			}
			for i := range got {
				if got[i].Path != want[i].Path {
					t.Fatalf("round %d limit %d: position %d holds %s, SliceStable gives %s", round, limit, i, got[i].Path, want[i].Path)
				}
			}
		}
	}
}

type nameEntry string

func (n nameEntry) Name() string               { return string(n) }
func (n nameEntry) IsDir() bool                { return false }
func (n nameEntry) Type() os.FileMode          { return 0 }
func (n nameEntry) Info() (os.FileInfo, error) { return nil, nil }

// TestSortEntriesMatchesLocaleCompare compares sortEntries with the
// localeCompare SliceStable it replaced, on slug-only and mixed names.
func TestSortEntriesMatchesLocaleCompare(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	alphabets := []string{"ab_-.09z", "ab_-.09zAB é~"}
	for round := 0; round < 400; round++ {
		alpha := []rune(alphabets[round%2])
		n := rng.Intn(40)
		entries := make([]os.DirEntry, n)
		for i := range entries {
			var b strings.Builder
			for k := rng.Intn(6); k >= 0; k-- {
				b.WriteRune(alpha[rng.Intn(len(alpha))])
			}
			entries[i] = nameEntry(b.String())
		}
		want := append([]os.DirEntry(nil), entries...)
		sort.SliceStable(want, func(i, j int) bool { return localeCompare(want[i].Name(), want[j].Name()) < 0 })
		sortEntries(entries)
		for i := range entries {
			if entries[i].Name() != want[i].Name() {
				t.Fatalf("round %d: got %v, want %v", round, entries, want)
			}
		}
	}
}

// TestHasSecretOnReadMatchesScanForm compares the per-value secret check
// with DetectSecrets over the whole JSON form, on memories built from
// secret shapes, their near misses and every character that escaping or
// \b cares about, in every field.
func TestHasSecretOnReadMatchesScanForm(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	secrets := []string{"sk-ABCDEFGHIJKLMNOP", "SK-abcdefghijklmnop", "sk_live_ABCDEFGHIJKLMNOP", "rk_live_ABCDEFGHIJKLMNOP",
		"npm_ABCDEFGHIJKLMNOPQRST", "hf_ABCDEFGHIJKLMNOPQRST", "ghp_ABCDEFGHIJKLMNOP", "gho_ABCDEFGHIJKLMNOP",
		"github_pat_ABCDEFGHIJKLMNOP", "AIzaABCDEFGHIJKLMNOP", "xoxb-ABCDEFGHIJ", "AKIAABCDEFGHIJKLMNOP",
		"ASIAABCDEFGHIJKLMNOP", "-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----"}
	pieces := []string{"a", "Z", "_", "-", " ", "\"", "\\", "\n", "\r", "\t", "\x01", "é", "\xed\xa0\x80", "\xff",
		"n", "r", "t", "u", "I", "sk", "pm_", "pm", "live", ":", ",", "[", "]"}
	for _, s := range secrets {
		pieces = append(pieces, s, s[:len(s)-1], s[:len(s)/2])
	}
	rnd := func() string {
		var b strings.Builder
		for n := rng.Intn(6); n > 0; n-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return b.String()
	}
	list := func() []string {
		out := make([]string, rng.Intn(3))
		for i := range out {
			out[i] = rnd()
		}
		return out
	}
	found := 0
	for i := 0; i < 30000; i++ {
		m := workedExample()
		switch field := rng.Intn(15); field {
		case 0:
			m.Schema = rnd()
		case 1:
			m.ID = rnd()
		case 2:
			m.Title = rnd()
		case 3:
			m.Kind = rnd()
		case 4:
			m.Scope = rnd()
		case 5:
			m.Trust = rnd()
		case 6:
			m.Status = rnd()
		case 7:
			m.SourceHarness = rnd()
		case 8:
			m.TargetHarnesses = list()
		case 9:
			m.Tags = list()
		case 10:
			m.Links = list()
		case 11:
			m.CreatedAt = rnd()
		case 12:
			m.UpdatedAt = rnd()
		default:
			m.Body = rnd()
		}
		want := len(DetectSecrets(scanForm(m))) > 0
		if got := hasSecretOnRead(m); got != want {
			t.Fatalf("%s: per-value %v, JSON form %v", scanForm(m), got, want)
		}
		if want {
			found++
		}
	}
	if found < 1000 {
		t.Fatalf("only %d memories held a secret; the comparison is too weak", found)
	}
}
