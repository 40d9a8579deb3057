package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

func TestGitConfigValue(t *testing.T) {
	for v, want := range map[string]string{
		"git echoes merge-driver %O %A %B %P":       "git echoes merge-driver %O %A %B %P",
		"EchoesVault page-aware merge (git-echoes)": "EchoesVault page-aware merge (git-echoes)",
		`'C:\Program Files\x.exe' merge-driver`:     `'C:\\Program Files\\x.exe' merge-driver`,
		`say "hi"`:                                  `say \"hi\"`,
		"a # not a comment":                         `"a # not a comment"`,
		"a;b":                                       `"a;b"`,
		" lead":                                     `" lead"`,
		"trail ":                                    `"trail "`,
		"tab\there\nnewline":                        `tab\there\nnewline`,
		`'/opt/it'"'"'s/git-echoes' merge-driver %O %A %B %P`: `'/opt/it'\"'\"'s/git-echoes' merge-driver %O %A %B %P`,
		`'/opt/#1; x\y/git-echoes' merge-driver %O %A %B %P`:  `"'/opt/#1; x\\y/git-echoes' merge-driver %O %A %B %P"`,
	} {
		if got := gitConfigValue(v); got != want {
			t.Errorf("gitConfigValue(%q) = %q, want %q", v, got, want)
		}
	}
}

// SetConfigSection writes what real git reads back, with the subsection
// escaped as git writes it; a second call writes nothing, and
// RemoveConfigSection restores the file byte for byte.
func TestSetConfigSectionUnderGit(t *testing.T) {
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(t.TempDir(), "repo"))
	cfg := filepath.Join(top, ".git", "config")
	orig, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sub := `we"ird\sub`
	keys := []ConfigKey{{Name: "name", Value: "v;1 # x"}, {Name: "path", Value: `C:\tools\x`}}
	if changed, err := SetConfigSection(cfg, "test", sub, keys); err != nil || !changed {
		t.Fatalf("set: %v %v", changed, err)
	}
	for _, k := range keys {
		if got := strings.TrimSuffix(sb.Git(top, "config", "--get", "test."+sub+"."+k.Name), "\n"); got != k.Value {
			t.Errorf("git reads %s as %q, want %q", k.Name, got, k.Value)
		}
	}
	if changed, err := SetConfigSection(cfg, "test", sub, keys); err != nil || changed {
		t.Errorf("second set: %v %v", changed, err)
	}
	if removed, err := RemoveConfigSection(cfg, "test", sub); err != nil || !removed {
		t.Fatalf("remove: %v %v", removed, err)
	}
	if got, _ := os.ReadFile(cfg); string(got) != string(orig) {
		t.Errorf("config after remove:\n%s\nwant:\n%s", got, orig)
	}
	if removed, err := RemoveConfigSection(cfg, "test", sub); err != nil || removed {
		t.Errorf("second remove: %v %v", removed, err)
	}
	if _, err := SetConfigSection(cfg, "bad section", "", nil); err == nil {
		t.Error("a section name with a space was accepted")
	}
}
