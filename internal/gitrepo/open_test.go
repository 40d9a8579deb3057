package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-echoes/git-echoes/internal/gitrepo/gitrepotest"
	"github.com/git-echoes/git-echoes/internal/testenv"
)

// committedRepo creates a repository with two committed directories.
func committedRepo(t *testing.T, sb *gitrepotest.Sandbox, args ...string) string {
	t.Helper()
	top := sb.Init(filepath.Join(realTemp(t), "repo"), args...)
	testenv.WriteFile(t, filepath.Join(top, "a/x.md"), "x\n")
	testenv.WriteFile(t, filepath.Join(top, "b/y.md"), "y\n")
	testenv.WriteFile(t, filepath.Join(top, "top.md"), "t\n")
	sb.Git(top, "add", ".")
	sb.Git(top, "commit", "-qm", "init")
	return top
}

func assertIndexMatchesGit(t *testing.T, sb *gitrepotest.Sandbox, r *Repo) {
	t.Helper()
	want := splitZ(sb.Git(r.Top(), "ls-files", "-z"))
	got, err := r.IndexPaths()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("IndexPaths = %v, git ls-files = %v", got, want)
	}
	for _, p := range want {
		if !got[p] {
			t.Fatalf("IndexPaths lacks %q (git: %v)", p, want)
		}
	}
}

func TestOpenRefusesUnsupported(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, sb *gitrepotest.Sandbox) string
	}{
		{"sha256 objects", func(t *testing.T, sb *gitrepotest.Sandbox) string {
			return committedRepo(t, sb, "--object-format=sha256")
		}},
		{"split index", func(t *testing.T, sb *gitrepotest.Sandbox) string {
			top := committedRepo(t, sb)
			sb.Git(top, "update-index", "--split-index")
			return top
		}},
		{"sparse index", func(t *testing.T, sb *gitrepotest.Sandbox) string {
			top := committedRepo(t, sb)
			sb.Git(top, "sparse-checkout", "set", "--cone", "--sparse-index", "a")
			return top
		}},
		{"unknown v1 extension", func(t *testing.T, sb *gitrepotest.Sandbox) string {
			top := committedRepo(t, sb)
			sb.Git(top, "config", "core.repositoryFormatVersion", "1")
			sb.Git(top, "config", "extensions.shinyNewThing", "true")
			return top
		}},
		{"v1-only extension in version 0", func(t *testing.T, sb *gitrepotest.Sandbox) string {
			top := committedRepo(t, sb)
			sb.Git(top, "config", "extensions.objectFormat", "sha1")
			return top
		}},
		{"future format version", func(t *testing.T, sb *gitrepotest.Sandbox) string {
			top := committedRepo(t, sb)
			sb.Git(top, "config", "core.repositoryFormatVersion", "2")
			return top
		}},
		{"mandatory unknown index extension", func(t *testing.T, sb *gitrepotest.Sandbox) string {
			top := committedRepo(t, sb)
			rewriteIndex(t, top, func(body []byte) []byte {
				return append(body, 'z', 'z', 'z', 'z', 0, 0, 0, 0)
			})
			return top
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sb := gitrepotest.New(t)
			top := c.setup(t, sb)
			_, err := Open(top)
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Open = %v, want an error wrapping ErrUnsupported", err)
			}
			t.Logf("refused: %v", err)
		})
	}
}

// rewriteIndex edits the body of .git/index and writes it back with a
// correct checksum.
func rewriteIndex(t *testing.T, top string, edit func([]byte) []byte) {
	t.Helper()
	p := filepath.Join(top, ".git", "index")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	body := edit(append([]byte(nil), data[:len(data)-20]...))
	sum := sha1Sum(body)
	if err := os.WriteFile(p, append(body, sum[:]...), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOpenSupported(t *testing.T) {
	t.Run("sparse checkout with worktreeConfig", func(t *testing.T) {
		sb := gitrepotest.New(t)
		top := committedRepo(t, sb)
		sb.Git(top, "sparse-checkout", "set", "--cone", "--no-sparse-index", "a")
		if v := strings.TrimSpace(sb.Git(top, "config", "--get", "extensions.worktreeConfig")); v != "true" {
			t.Fatalf("scenario: extensions.worktreeConfig = %q", v)
		}
		r, err := Open(top)
		if err != nil {
			t.Fatal(err)
		}
		assertIndexMatchesGit(t, sb, r)
		// core.sparseCheckout lives in config.worktree.
		if b, ok, err := r.ConfigBool("core", "", "sparseCheckout"); err != nil || !ok || !b {
			t.Errorf("core.sparseCheckout = %v, %v, %v", b, ok, err)
		}
		es, err := r.StagedFiles("b")
		if err != nil || len(es) != 1 {
			t.Fatalf("skip-worktree entry: %+v, %v", es, err)
		}
		if b, err := es[0].Read(); err != nil || string(b) != "y\n" {
			t.Errorf("skip-worktree blob = %q, %v", b, err)
		}
	})
	t.Run("index versions 2 3 4", func(t *testing.T) {
		sb := gitrepotest.New(t)
		top := committedRepo(t, sb)
		testenv.WriteFile(t, filepath.Join(top, "a/deeper/and/longer/name.md"), "n\n")
		sb.Git(top, "add", "-N", "a/deeper/and/longer/name.md") // extended flags: v3
		for _, v := range []string{"2", "3", "4"} {
			if v == "2" {
				sb.Git(top, "add", "a/deeper/and/longer/name.md") // clear intent-to-add
			}
			sb.Git(top, "update-index", "--index-version", v)
			r, err := Open(top)
			if err != nil {
				t.Fatalf("version %s: %v", v, err)
			}
			assertIndexMatchesGit(t, sb, r)
		}
	})
	t.Run("skipHash index", func(t *testing.T) {
		// index.skipHash (git 2.40+) writes an all-zero trailer; produce
		// one by hand so the test does not depend on the git version.
		sb := gitrepotest.New(t)
		top := committedRepo(t, sb)
		want := splitZ(sb.Git(top, "ls-files", "-z"))
		p := filepath.Join(top, ".git", "index")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		copy(data[len(data)-20:], make([]byte, 20))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := Open(top)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := r.IndexPaths(); err != nil || len(got) != len(want) {
			t.Fatalf("IndexPaths = %v, want %v", got, want)
		}
	})
	t.Run("corrupt index checksum", func(t *testing.T) {
		sb := gitrepotest.New(t)
		top := committedRepo(t, sb)
		corruptIndexChecksum(t, top)
		if _, err := Open(top); err == nil {
			t.Fatal("Open accepted an index with a bad checksum")
		}
	})
	t.Run("fresh repository without index", func(t *testing.T) {
		sb := gitrepotest.New(t)
		top := sb.Init(filepath.Join(realTemp(t), "repo"))
		r, err := Open(top)
		if err != nil {
			t.Fatal(err)
		}
		if idx, err := r.IndexPaths(); err != nil || len(idx) != 0 {
			t.Fatal("a fresh repository has an empty index")
		}
		if _, err := r.TreeFiles("HEAD", ""); err == nil {
			t.Fatal("TreeFiles(HEAD) on an unborn branch succeeded")
		}
	})
}

// TestConfigPrecedence compares ConfigValue with `git config --get` over
// system, global, local, worktree, include, includeIf and environment
// sources, with the syntax corner cases of git-config(1).
func TestConfigPrecedence(t *testing.T) {
	sb := gitrepotest.New(t)
	top := committedRepo(t, sb)
	branch := strings.TrimSpace(sb.Git(top, "symbolic-ref", "--short", "HEAD"))
	dir := realTemp(t)
	system := filepath.Join(dir, "system")
	testenv.WriteFile(t, filepath.Join(dir, "system"), "[echo]\n\tsys = system\n\tall = system\n")
	testenv.WriteFile(t, filepath.Join(dir, "included"), "[echo]\n\tinc = included\n\tall = included\n")
	// Each conditional include has a file and a key of its own, so that
	// each is proven by itself (one file for both passed with either
	// condition broken).
	testenv.WriteFile(t, filepath.Join(dir, "cond-gitdir"), "[echo]\n\tgitdircond = matched\n")
	testenv.WriteFile(t, filepath.Join(dir, "cond-branch"), "[echo]\n\tbranchcond = matched\n")
	testenv.WriteFile(t, filepath.Join(dir, "nocond"), "[echo]\n\tnocond = wrongly matched\n")
	// global is the global configuration with the paths spelled by path (a
	// config value) and the work tree's top spelled top (a gitdir: pattern
	// is a wildmatch pattern: slashes, as Git for Windows wants them).
	global := func(path func(string) string, top string) []byte {
		return []byte("[echo]\n\tglobal = global\n\tall = global\n" +
			"[include]\n\tpath = " + path(filepath.Join(dir, "included")) + "\n" +
			"[includeIf \"gitdir:" + top + "/\"]\n\tpath = " + path(filepath.Join(dir, "cond-gitdir")) + "\n" +
			"[includeIf \"gitdir:/nowhere/\"]\n\tpath = " + path(filepath.Join(dir, "nocond")) + "\n" +
			"[includeIf \"onbranch:" + branch + "\"]\n\tpath = " + path(filepath.Join(dir, "cond-branch")) + "\n")
	}
	if err := os.WriteFile(sb.GlobalConfig, global(configPath, filepath.ToSlash(top)), 0o644); err != nil {
		t.Fatal(err)
	}
	// Under the wine bridge the Linux git cannot read the Windows paths of
	// that file (to it, C:/... is relative): the git it compares with reads
	// the same configuration spelled with the Unix paths of the same files
	// and the top git itself reports, from a second global file.
	var gitGlobal string
	if underWineGit() {
		gitGlobal = filepath.Join(dir, "gitconfig-unix")
		unixTop := strings.TrimSpace(sb.Git(top, "rev-parse", "--show-toplevel"))
		if err := os.WriteFile(gitGlobal, global(func(p string) string { return gitSidePath(t, p) }, unixTop), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	local := filepath.Join(top, ".git", "config")
	data, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, []byte(
		"[echo]\n\tall = local ; comment\n"+
			"\tquoted = \"  spaced  \\\"q\\\" \\\\ \"  # trailing comment\n"+
			"\tjoined = one \\\n   two\n"+
			"\ttabs = a\\tb\n"+
			"\tinner = a    b\n"+
			"\tbare\n"+
			"[Echo \"Sub.Section\"]\n\tKey = sub exact\n"+
			"[echo \"sub.section\"]\n\tkey = sub lower\n"+
			"[echo.Legacy]\n\tkey = legacy\n"+
			"[echo] wt = local\n")...)
	if err := os.WriteFile(local, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sb.Git(top, "config", "extensions.worktreeConfig", "true")
	sb.Git(top, "config", "--worktree", "echo.wt", "worktree")

	env := []string{
		"GIT_CONFIG_SYSTEM=" + system,
		"GIT_CONFIG_PARAMETERS='echo.param'='from parameters' 'echo.all'='parameters'",
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=echo.count", "GIT_CONFIG_VALUE_0=from count",
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "")
	env = append(env, "GIT_CONFIG_NOSYSTEM=")
	if gitGlobal != "" {
		env = append(env, "GIT_CONFIG_GLOBAL="+gitGlobal) // git only: after the Setenv above
	}

	r, err := Open(top)
	if err != nil {
		t.Fatal(err)
	}
	keys := []struct{ section, sub, key string }{
		{"echo", "", "sys"}, {"echo", "", "global"}, {"echo", "", "inc"}, {"echo", "", "gitdircond"}, {"echo", "", "branchcond"},
		{"echo", "", "nocond"}, {"echo", "", "all"}, {"echo", "", "quoted"}, {"echo", "", "joined"},
		{"echo", "", "tabs"}, {"echo", "", "inner"}, {"echo", "", "bare"}, {"ECHO", "Sub.Section", "KEY"},
		{"echo", "sub.section", "key"}, {"echo", "legacy", "key"}, {"echo", "Legacy", "key"},
		{"echo", "", "wt"}, {"echo", "", "param"}, {"echo", "", "count"}, {"echo", "", "missing"},
	}
	for _, k := range keys {
		name := k.section + "." + k.key
		if k.sub != "" {
			name = k.section + "." + k.sub + "." + k.key
		}
		out, gitErr := sb.Run(top, env, nil, "config", "--get", name)
		got, ok := r.ConfigValue(k.section, k.sub, k.key)
		if ok != (gitErr == nil) {
			t.Errorf("%s: found=%v, git found=%v (%v)", name, ok, gitErr == nil, gitErr)
			continue
		}
		if want := strings.TrimSuffix(out, "\n"); ok && got != want {
			t.Errorf("%s = %q, git says %q", name, got, want)
		}
	}
	if b, ok, err := r.ConfigBool("echo", "", "bare"); err != nil || !ok || !b {
		t.Errorf("valueless key as bool = %v, %v, %v", b, ok, err)
	}
	// git agreeing is not enough: both conditions hold here, so both
	// keys must be found (a condition that matched nothing for either
	// reader would pass the comparison above).
	for _, k := range []string{"gitdircond", "branchcond"} {
		if v, ok := r.ConfigValue("echo", "", k); !ok || v != "matched" {
			t.Errorf("echo.%s = %q, %v: its includeIf did not apply", k, v, ok)
		}
	}
}

// OpenLazy reads the index and the exclude files on first use: a
// repository whose index or core.excludesFile Open refuses still resolves
// and reads objects, and every use of what it could not read reports
// Open's error, word for word (issue 18, warm).
func TestOpenLazyReportsOpenErrors(t *testing.T) {
	t.Run("corrupt index", func(t *testing.T) {
		sb := gitrepotest.New(t)
		top := committedRepo(t, sb)
		corruptIndexChecksum(t, top)
		_, openErr := Open(top)
		if openErr == nil {
			t.Fatal("Open accepted an index with a bad checksum")
		}
		r, err := OpenLazy(top)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.ResolveCommit("HEAD"); err != nil {
			t.Fatal(err)
		}
		if _, err := r.IndexPaths(); err == nil || err.Error() != openErr.Error() {
			t.Errorf("IndexPaths: %v, want %v", err, openErr)
		}
		if _, err := r.StagedFiles(""); err == nil || err.Error() != openErr.Error() {
			t.Errorf("StagedFiles: %v, want %v", err, openErr)
		}
		if _, err := r.Untracked([]string{"new.md"}); err == nil || err.Error() != openErr.Error() {
			t.Errorf("Untracked: %v, want %v", err, openErr)
		}
		if _, err := r.Ignored("a/x.md", false); err != nil {
			t.Errorf("Ignored needs no index: %v", err)
		}
	})
	t.Run("core.excludesFile without a value", func(t *testing.T) {
		sb := gitrepotest.New(t)
		top := committedRepo(t, sb)
		f, err := os.OpenFile(filepath.Join(top, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("[core]\n\texcludesFile\n"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		_, openErr := Open(top)
		if openErr == nil {
			t.Fatal("Open accepted core.excludesFile without a value")
		}
		r, err := OpenLazy(top)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.IndexPaths(); err != nil {
			t.Errorf("IndexPaths needs no exclude file: %v", err)
		}
		for i := 0; i < 2; i++ {
			if _, err := r.Ignored("a/x.md", false); err == nil || err.Error() != openErr.Error() {
				t.Errorf("Ignored: %v, want %v", err, openErr)
			}
		}
		testenv.WriteFile(t, filepath.Join(top, "new.md"), "n\n")
		if _, err := r.Untracked([]string{"new.md"}); err == nil || err.Error() != openErr.Error() {
			t.Errorf("Untracked: %v, want %v", err, openErr)
		}
	})
	t.Run("the same answers as Open", func(t *testing.T) {
		sb := gitrepotest.New(t)
		top := committedRepo(t, sb)
		testenv.WriteFile(t, filepath.Join(top, ".git", "info", "exclude"), "*.tmp\n")
		eager, err := Open(top)
		if err != nil {
			t.Fatal(err)
		}
		lazy, err := OpenLazy(top)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := strings.Join(eager.Sources(), "\n"), strings.Join(lazy.Sources(), "\n"); a != b {
			t.Errorf("Sources: Open %s\nOpenLazy %s", a, b)
		}
		assertIndexMatchesGit(t, sb, lazy)
		for _, p := range []string{"x.tmp", "a/x.md"} {
			a, err1 := eager.Ignored(p, false)
			b, err2 := lazy.Ignored(p, false)
			if a != b || err1 != nil || err2 != nil {
				t.Errorf("Ignored(%s): Open %v %v, OpenLazy %v %v", p, a, err1, b, err2)
			}
		}
	})
}

// corruptIndexChecksum flips the last byte of top's Git index, its
// checksum's.
func corruptIndexChecksum(t *testing.T, top string) {
	t.Helper()
	p := filepath.Join(top, ".git", "index")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 0xff
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIncludeIfGitdirHome: includeIf "gitdir:~/..." patterns, against git.
// "~/work/" matches every repository below ~/work (a trailing slash is
// "/**"); it used to be joined with filepath.Join, which dropped that
// slash, so such an include never applied.
func TestIncludeIfGitdirHome(t *testing.T) {
	sb := gitrepotest.New(t)
	top := sb.Init(filepath.Join(sb.Home, "work", "repo"))
	for name, v := range map[string]string{"slash": "slash", "bare": "bare", "icase": "icase", "other": "other"} {
		testenv.WriteFile(t, filepath.Join(sb.Home, "inc-"+name), "[echo]\n\t"+name+" = "+v+"\n")
	}
	cfg := "[includeIf \"gitdir:~/work/\"]\n\tpath = ~/inc-slash\n" +
		"[includeIf \"gitdir:~/work\"]\n\tpath = ~/inc-bare\n" +
		"[includeIf \"gitdir/i:~/WORK/\"]\n\tpath = ~/inc-icase\n" +
		"[includeIf \"gitdir:~/elsewhere/\"]\n\tpath = ~/inc-other\n"
	if err := os.WriteFile(sb.GlobalConfig, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(top)
	if err != nil {
		t.Fatal(err)
	}
	matched := 0
	for _, key := range []string{"slash", "bare", "icase", "other"} {
		out, gitErr := sb.Run(top, nil, nil, "config", "--get", "echo."+key)
		got, ok := r.ConfigValue("echo", "", key)
		if ok != (gitErr == nil) {
			t.Errorf("echo.%s: found=%v, git found=%v", key, ok, gitErr == nil)
			continue
		}
		if want := strings.TrimSuffix(out, "\n"); ok && got != want {
			t.Errorf("echo.%s = %q, git says %q", key, got, want)
		}
		if ok {
			matched++
		}
	}
	if matched != 2 { // slash and icase, as git says
		t.Errorf("%d of the includes applied, want 2", matched)
	}
}
