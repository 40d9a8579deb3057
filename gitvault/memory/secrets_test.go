package memory

import (
	"strings"
	"testing"
)

func TestMemorySecretFamilies(t *testing.T) {
	cases := []struct {
		label    string
		positive []string
		negative []string
	}{
		{"provider API key",
			[]string{"sk-abcdefghijklmnop", "SK-ABCDEFGHIJKLMNOP", "x sk-proj_abc-DEF_1234567890 y"},
			[]string{"sk-short", "task-abcdefghijklmnop", "sk_abcdefghijklmnop"}},
		{"Stripe key",
			[]string{"sk_live_abcdefghijklmnop", "rk_live_ABCDEFGH12345678"},
			[]string{"sk_live_short", "sk_test_abcdefghijklmnop", "SK_LIVE_abcdefghijklmnop"}},
		{"npm token",
			[]string{"npm_abcdefghijklmnopqrst"},
			[]string{"npm_abcdefghijklmnopqrs", "NPM_abcdefghijklmnopqrst", "xnpm_abcdefghijklmnopqrst"}},
		{"Hugging Face token",
			[]string{"hf_abcdefghijklmnopqrst"},
			[]string{"hf_short", "HF_abcdefghijklmnopqrst"}},
		{"GitHub token",
			[]string{"ghp_abcdefghijklmnop", "gho_abcdefghijklmnop", "ghr_abcdefghijklmnop", "ghs_abcdefghijklmnop", "github_pat_11ABC_defghijklmnop"},
			[]string{"ghx_abcdefghijklmnop", "ghp_abcdefghijklmno", "github_pat_short"}},
		{"Google API key",
			[]string{"AIzaabcdefghijklmnop", "AIza0123456789-_abcd"},
			[]string{"AIzashort", "aiza0123456789abcdef"}},
		{"Slack token",
			[]string{"xoxb-1234567890", "xoxp-abc-def-ghij", "xoxa-1234567890", "xoxr-1234567890", "xoxs-1234567890"},
			[]string{"xoxc-1234567890", "xoxb-123456789", "XOXB-1234567890"}},
		{"AWS access key",
			[]string{"AKIAABCDEFGHIJKLMNOP", "ASIA0123456789ABCDEF"},
			[]string{"AKIAABCDEFGHIJKLMNO", "AKIAABCDEFGHIJKLMNOPQ", "akiaabcdefghijklmnop"}},
		{"private key",
			[]string{"-----BEGIN PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----"},
			[]string{"-----BEGIN PUBLIC KEY-----", "-----BEGIN rsa PRIVATE KEY-----", "BEGIN PRIVATE KEY"}},
	}
	for _, c := range cases {
		for _, p := range c.positive {
			if got := DetectSecrets(`"` + p + `"`); len(got) != 1 || got[0] != c.label {
				t.Errorf("%q: got %v, want [%s]", p, got, c.label)
			}
		}
		for _, n := range c.negative {
			if got := DetectSecrets(`"` + n + `"`); containsLabel(got, c.label) {
				t.Errorf("%q: unexpectedly detected as %s", n, c.label)
			}
		}
	}
}

func TestMemorySecretLabelsDeduplicatedInPatternOrder(t *testing.T) {
	got := DetectSecrets("AKIAABCDEFGHIJKLMNOP ghp_abcdefghijklmnop github_pat_11ABC_defghijklmnop sk-abcdefghijklmnop")
	if strings.Join(got, ", ") != "provider API key, GitHub token, AWS access key" {
		t.Fatalf("got %v", got)
	}
}

func TestMemorySecretNewlineGap(t *testing.T) {
	base := workedExample()
	base.Body = "key:\nsk-A1A1A1A1A1A1A1A1A1A1"
	// The reference scans the JSON form, where "\n" precedes the token, so
	// reads keep the file...
	if got := secretsOnRead(base); len(got) != 0 {
		t.Fatalf("read scan should follow the reference and miss it, got %v", got)
	}
	// ...while writes also scan raw values and refuse it.
	if got := secretsOnWrite(base); len(got) != 1 || got[0] != "provider API key" {
		t.Fatalf("write scan got %v", got)
	}
	for _, sep := range []string{"\r", "\t"} {
		base.Body = "key:" + sep + "ghp_abcdefghijklmnopqrst"
		if len(secretsOnRead(base)) != 0 || len(secretsOnWrite(base)) != 1 {
			t.Fatalf("separator %q: read %v write %v", sep, secretsOnRead(base), secretsOnWrite(base))
		}
	}
	base.Body = "key: sk-A1A1A1A1A1A1A1A1A1A1"
	if len(secretsOnRead(base)) != 1 {
		t.Fatal("a token after a space must be quarantined on read")
	}
}

func TestMemorySaveRefusesSecretsInEveryField(t *testing.T) {
	r := testRoots(t)
	inputs := []SaveInput{
		{Title: "sk-abcdefghijklmnopqrst", Body: "b"},
		{Title: "t", Body: "b", Tags: []string{"sk-learn-tutorial-basics"}},
		{Title: "t", Body: "line\nAKIAABCDEFGHIJKLMNOP"},
		{Title: "t", Body: "-----BEGIN EC PRIVATE KEY-----\nabc"},
	}
	for _, in := range inputs {
		_, err := Save(r, in)
		if ErrorCode(err) != CodeSecret || !strings.HasPrefix(err.Error(), "Refusing to save memory containing a suspected secret (") {
			t.Errorf("%+v: got %v", in, err)
		}
	}
	if entries := listFiles(t, r.ProjectVault); len(entries) != 0 {
		t.Fatalf("refused saves touched the filesystem: %v", entries)
	}
}

// The reference's provider-key regex uses JavaScript's non-Unicode "i" flag,
// which folds ASCII letters only: U+017F (long s) and U+212A (Kelvin sign)
// match neither "s"/"k" nor [A-Za-z]. RE2's (?i) folds both, which would
// quarantine on read files the reference keeps (and change read
// completeness).
func TestMemorySecretProviderKeyFoldsASCIIOnly(t *testing.T) {
	for _, s := range []string{
		"x sk-AAAAAAAAAAAAAAA\u017fA y", // 15 ASCII letters, then long s
		"x sk-AAAAAAAAAAAAAAA\u212aA y", // 15 ASCII letters, then Kelvin sign
		"a\u017fk-AAAAAAAAAAAAAAAAAAAA",
		"s\u212a-AAAAAAAAAAAAAAAAAAAA",
	} {
		if got := DetectSecrets(s); len(got) != 0 {
			t.Errorf("%q: got %v, the reference detects nothing", s, got)
		}
		m := workedExample()
		m.Body = s
		if hasSecretOnRead(m) {
			t.Errorf("%q: quarantined on read, the reference keeps it", s)
		}
	}
	for _, s := range []string{"sK-AAAAAAAAAAAAAAAA", "Sk-aaaaaaaaaaaaaaaa", "x SK-AAAAAAAAAAAAAAA_ y"} {
		if got := DetectSecrets(s); len(got) != 1 || got[0] != "provider API key" {
			t.Errorf("%q: got %v", s, got)
		}
	}
}
