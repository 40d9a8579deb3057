package merge

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo"
	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
)

// The config editor touches only our section: comments, odd spacing and
// other sections survive, and git reads the result.
func TestMergeDriverConfig(t *testing.T) {
	sb, repo := gitrepotest.Open(t, gitrepo.Open)
	cfg := filepath.Join(repo.CommonDir(), "config")
	orig, _ := os.ReadFile(cfg)
	user := string(orig) + "; a comment\n[alias]\n  co = checkout # trailing\n[MERGE \"echoes-vault\"]\n\tdriver = old\n[merge \"other\"]\n\tname = keep\n"
	os.WriteFile(cfg, []byte(user), 0o644)
	os.WriteFile(filepath.Join(repo.Top(), ".gitattributes"), []byte("*.png binary"), 0o644)
	c, err := InstallMergeDriver(repo)
	if err != nil || c.ConfigAction != "added" || c.AttributesAction != "added" {
		t.Fatalf("install: %+v %v", c, err)
	}
	if got := strings.TrimSpace(sb.Git(repo.Top(), "config", "--get-all", "merge.echoes-vault.driver")); got != MergeDriverCommand {
		t.Errorf("git reads driver %q", got)
	}
	if got := strings.TrimSpace(sb.Git(repo.Top(), "config", "merge.other.name")); got != "keep" {
		t.Errorf("other section: %q", got)
	}
	if c, _ := InstallMergeDriver(repo); c.ConfigAction != "unchanged" || c.AttributesAction != "unchanged" {
		t.Errorf("second install: %+v", c)
	}
	if _, err := UninstallMergeDriver(repo); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(user, "[MERGE \"echoes-vault\"]\n\tdriver = old\n", "", 1)
	if got, _ := os.ReadFile(cfg); string(got) != want {
		t.Errorf("config after uninstall:\n%s\nwant:\n%s", got, want)
	}
	if got, _ := os.ReadFile(filepath.Join(repo.Top(), ".gitattributes")); string(got) != "*.png binary\n" {
		t.Errorf(".gitattributes after uninstall: %q", got)
	}
	os.WriteFile(cfg+".lock", nil, 0o644)
	if _, err := InstallMergeDriver(repo); err == nil || !strings.Contains(err.Error(), "another git process") {
		t.Errorf("locked config: %v", err)
	}
}

func TestMergeDriverCommandFor(t *testing.T) {
	for _, tc := range []struct{ bin, goos, want, err string }{
		{"", "linux", "git echoes merge-driver %O %A %B %P", ""},
		{"", "windows", "git echoes merge-driver %O %A %B %P", ""},
		{"/usr/local/bin/git-echoes", "linux", "'/usr/local/bin/git-echoes' merge-driver %O %A %B %P", ""},
		{"/opt/my tools/it's/git-echoes", "linux", `'/opt/my tools/it'"'"'s/git-echoes' merge-driver %O %A %B %P`, ""},
		{`/opt/a\b/git-echoes`, "linux", `'/opt/a\b/git-echoes' merge-driver %O %A %B %P`, ""},
		{`C:\Program Files\git-echoes\git-echoes.exe`, "windows", "'C:/Program Files/git-echoes/git-echoes.exe' merge-driver %O %A %B %P", ""},
		{`C:\Users\O'Neil\go\bin\git-echoes.exe`, "windows", `'C:/Users/O'"'"'Neil/go/bin/git-echoes.exe' merge-driver %O %A %B %P`, ""},
		{`\\server\share\git-echoes.exe`, "windows", "'//server/share/git-echoes.exe' merge-driver %O %A %B %P", ""},
		{`C:\100%\git-echoes.exe`, "windows", "", `cannot use C:\100%\git-echoes.exe as the merge driver: git would expand the % in its path`},
	} {
		got, err := MergeDriverCommandFor(tc.bin, tc.goos)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("MergeDriverCommandFor(%q, %s) = %q, %v; want %q, %q", tc.bin, tc.goos, got, err, tc.want, tc.err)
		}
	}
}

// Real git reads back exactly the driver command we wrote, whatever the
// binary path holds (spaces, quotes, backslashes, '#', ';'), and runs it:
// a merge of a page calls the binary at that path with the merge-driver
// arguments. The test binary stands in for git-echoes (TestMain).
func TestMergeDriverBinaryUnderGit(t *testing.T) {
	sb, repo := gitrepotest.Open(t, gitrepo.Open)
	top := repo.Top()
	paths := []string{
		filepath.Join(t.TempDir(), "Program Files", "git echoes", "git-echoes"),
		filepath.Join(t.TempDir(), "it's #1; odd", "git-echoes"),
	}
	if runtime.GOOS != "windows" {
		paths = append(paths, filepath.Join(t.TempDir(), `back\slash "q"`, "git-echoes"))
	}
	for _, bin := range paths {
		c, err := InstallMergeDriverBinary(repo, bin)
		if err != nil || c.ConfigAction != "added" {
			t.Fatalf("install %q: %+v %v", bin, c, err)
		}
		want, _ := MergeDriverCommandFor(bin, runtime.GOOS)
		if got := strings.TrimSuffix(sb.Git(top, "config", "--get", "merge.echoes-vault.driver"), "\n"); got != want {
			t.Errorf("git reads driver %q, want %q", got, want)
		}
		if got := strings.TrimSuffix(sb.Git(top, "config", "--get", "merge.echoes-vault.name"), "\n"); got != mergeDriverLabel {
			t.Errorf("git reads name %q", got)
		}
		if c, _ := InstallMergeDriverBinary(repo, bin); c.ConfigAction != "unchanged" {
			t.Errorf("second install of %q: %+v", bin, c)
		}
	}
	// The last one installed runs in a real merge.
	bin := paths[len(paths)-1]
	if runtime.GOOS == "windows" {
		if v := sb.Git(top, "--version"); !strings.Contains(v, ".windows.") {
			t.Skipf("not Git for Windows (%s): the driver would run under another sh", strings.TrimSpace(v))
		}
		bin += ".exe"
		if _, err := InstallMergeDriverBinary(repo, bin); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	page := "EchoesVault/pages/my page.md"
	write := func(content string) {
		p := filepath.Join(top, filepath.FromSlash(page))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("base\n")
	sb.Git(top, "add", "-A")
	sb.Git(top, "commit", "-qm", "base")
	sb.Git(top, "checkout", "-qb", "side")
	write("side\n")
	sb.Git(top, "commit", "-qam", "side")
	sb.Git(top, "checkout", "-q", "main")
	write("main\n")
	sb.Git(top, "commit", "-qam", "main")
	log := filepath.Join(t.TempDir(), "log")
	if _, err := sb.Run(top, []string{"FAKE_LOG=" + log, "FAKE_EXIT=0"}, nil, "merge", "-q", "--no-edit", "side"); err != nil {
		t.Fatalf("merge: %v", err)
	}
	got, _ := os.ReadFile(log)
	fields := strings.Fields(string(got))
	if len(fields) < 3 || fields[0] != "ran:" || fields[1] != "merge-driver" || !strings.HasSuffix(strings.TrimSpace(string(got)), " "+page) {
		t.Errorf("the driver ran as %q, want merge-driver %%O %%A %%B %s", got, page)
	}
}
