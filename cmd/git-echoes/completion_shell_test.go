package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/git-echoes/git-echoes/internal/testenv"
)

// The completion scripts run in the real shells (issue 8: "completion
// scripts load in bash and complete a command"). git-echoes is on PATH:
// testscript.Main (script_test.go) puts this test binary there under that
// name, and the scripts call it back for their answers.

// shellSetup makes a private HOME, a Git repository holding a vault with
// pages whose names test quoting, and the scripts; it returns the
// repository and an environment isolated from the machine's configuration.
func shellSetup(t *testing.T) (repo string, env []string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the Unix shells are tested on Unix")
	}
	home := t.TempDir()
	g, err := testenv.NewGit(home, filepath.Join(home, ".gitconfig"), "")
	if err != nil {
		t.Fatal(err)
	}
	env = append(g.Environ(),
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"LANG=C.UTF-8",
		"TERM=dumb",
	)
	repo = filepath.Join(home, "repo")
	pages := filepath.Join(repo, "EchoesVault", "pages")
	if err := os.MkdirAll(pages, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alpha.md", "beta.md", "my page.md", "a:b.md", "$(touch PWNED).md"} {
		if err := os.WriteFile(filepath.Join(pages, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "payload.json"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command("git", "init", "-q", repo)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
	return repo, env
}

// runShell runs a shell command line in dir and returns its stdout. A
// hung shell fails the test instead of the whole run.
func runShell(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s%s", name, args, err, out, stderr.String())
	}
	return string(out)
}

func noPwned(t *testing.T, repo string) {
	t.Helper()
	for _, p := range []string{filepath.Join(repo, "PWNED"), filepath.Join(repo, "EchoesVault", "pages", "PWNED")} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("a page name was run as a command: %s exists", p)
		}
	}
}

// bashSim completes a command line in bash as readline does: the line is
// split at blanks and around the = and : word-break characters, then the
// function registered for the command runs (loaded on demand through
// bash-completion when there is none yet). COMPREPLY is printed one entry
// a line, in brackets.
const bashSim = `COMP_LINE="$1"
COMP_POINT=${#COMP_LINE}
COMP_WORDS=()
read -ra tokens <<<"$COMP_LINE"
for t in "${tokens[@]}"; do
	while [[ $t == *[=:]* ]]; do
		pre=${t%%[=:]*}
		[[ -n $pre ]] && COMP_WORDS+=("$pre")
		COMP_WORDS+=("${t:${#pre}:1}")
		t=${t:${#pre}+1}
	done
	[[ -n $t ]] && COMP_WORDS+=("$t")
done
[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
if ! complete -p "${COMP_WORDS[0]}" >/dev/null 2>&1; then
	_completion_loader "${COMP_WORDS[0]}"
fi
spec=$(complete -p "${COMP_WORDS[0]}")
fn=${spec##*-F }
fn=${fn%% *}
"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '[%s]\n' "${COMPREPLY[@]}"
`

type shellCase struct{ line, want string }

func TestBashCompletion(t *testing.T) {
	bash := needTool(t, "bash", "apt-get install bash")
	repo, env := shellSetup(t)
	dir := t.TempDir()
	testenv.WriteFile(t, filepath.Join(dir, "echoes.bash"), completionScripts["bash"])
	testenv.WriteFile(t, filepath.Join(dir, "sim.bash"), bashSim)

	// The issue's own check: the script loads and registers git-echoes.
	out := runShell(t, repo, env, bash, "-c", "source <(git-echoes completion bash) && complete -p")
	if !strings.Contains(out, "complete -o bashdefault -o default -o nospace -F __git_echoes_bash git-echoes\n") {
		t.Errorf("complete -p after sourcing:\n%s", out)
	}
	for _, c := range []shellCase{
		{"git-echoes sta", "[status ]\n[start ]\n[stale ]\n"},
		{"git-echoes --w", "[--workspace ]\n"},
		{"git-echoes search --", "[--limit ]\n[--rev ]\n[--help ]\n"},
		{"git-echoes check --format=j", "[json ]\n"},
		{"git-echoes check --format ", "[text ]\n[json ]\n[github ]\n[codequality ]\n"},
		{"git-echoes memory save --kind d", "[decision ]\n"},
		// Page names, quoted for the command line; a name that looks like
		// a command substitution is offered, never run.
		{"git-echoes hash ", "[\\$\\(touch\\ PWNED\\) ]\n[a:b ]\n[alpha ]\n[beta ]\n[my\\ page ]\n"},
		{"git-echoes hash my", "[my\\ page ]\n"},
		{"git-echoes hash a:", "[b ]\n"},
		{"git-echoes --workspace=EchoesVault/.. hash al", "[alpha ]\n"},
		// Files for --payload, besides "-" for stdin.
		{"git-echoes upsert --payload pay", "[payload.json]\n"},
		{"git-echoes upsert --payload=pay", "[payload.json]\n"},
	} {
		got := runShell(t, repo, env, bash, "-c", `source "$2/echoes.bash"; source "$2/sim.bash" "$1"`, "_", c.line, dir)
		if got != c.want {
			t.Errorf("%q: COMPREPLY\n%s\nwant\n%s", c.line, got, c.want)
		}
	}
	noPwned(t, repo)
}

// Through Git's own completion, installed where bash-completion loads it
// on demand: "git echoes <TAB>" reaches _git_echoes, which Git's
// __git_complete_command calls after asking bash-completion for
// completions/git-echoes.
func TestBashCompletionThroughGit(t *testing.T) {
	bash := needTool(t, "bash", "apt-get install bash")
	needTool(t, "git", "apt-get install git")
	const loader = "/usr/share/bash-completion/bash_completion"
	const gitCompletion = "/usr/share/bash-completion/completions/git"
	for _, f := range []string{loader, gitCompletion} {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv("CI") == "true" && runtime.GOOS == "linux" {
				t.Fatalf("%s is missing (apt-get install bash-completion git)", f)
			}
			t.Skipf("%s is missing (apt-get install bash-completion git)", f)
		}
	}
	repo, env := shellSetup(t)
	home := strings.TrimPrefix(env[1], "HOME=")
	testenv.WriteFile(t, filepath.Join(home, ".local", "share", "bash-completion", "completions", "git-echoes"), completionScripts["bash"])
	dir := t.TempDir()
	testenv.WriteFile(t, filepath.Join(dir, "sim.bash"), bashSim)
	if err := os.Mkdir(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []shellCase{
		{"git echoes sta", "[status ]\n[start ]\n[stale ]\n"},
		{"git echoes check --format=", "[text ]\n[json ]\n[github ]\n[codequality ]\n"},
		{"git echoes hash al", "[alpha ]\n"},
		{"git echoes hash my", "[my\\ page ]\n"},
		{"git echoes memory ", "[init ]\n[save ]\n[handoff ]\n[search ]\n[read ]\n[doctor ]\n[help ]\n"},
		// The direct command, registered by the same file.
		{"git-echoes ver", "[version ]\n"},
	} {
		script := `source ` + loader + `; source "$2/sim.bash" "$1"; declare -F _git_echoes >/dev/null || echo "_git_echoes was not loaded"`
		got := runShell(t, filepath.Join(repo, "sub"), env, bash, "-c", script, "_", c.line, dir)
		if got != c.want {
			t.Errorf("%q: COMPREPLY\n%s\nwant\n%s", c.line, got, c.want)
		}
	}
	// git -C DIR: the vault of DIR, from a directory outside it.
	got := runShell(t, dir, env, bash, "-c", `source `+loader+`; source "$2/sim.bash" "$1"`, "_", "git -C "+repo+" echoes hash b", dir)
	if got != "[beta ]\n" {
		t.Errorf("git -C %s echoes hash b: %q", repo, got)
	}
	// And Git lists the command itself.
	got = runShell(t, repo, env, bash, "-c", `source `+loader+`; source "$2/sim.bash" "$1"`, "_", "git echo", dir)
	if !strings.Contains(got, "[echoes ]\n") {
		t.Errorf("git echo<TAB>: %q", got)
	}
	noPwned(t, repo)
}

// zshMock stands in for the completion builtins, which work only inside a
// completion widget: each prints what it was asked to offer.
const zshMock = `compadd() { local i=${@[(i)--]}; print -rl -- "compadd:${^@[i+1,-1]}"; }
_files() { print -r -- "_files $*"; }
compset() { print -r -- "compset $*"; }
`

// zshPty types a line and TAB into an interactive zsh with compinit and
// the completion directory on $fpath, through zsh's own pseudo-terminal
// module, then prints the edited line: the whole of zsh's completion
// system runs, _git included. The marker is spelled in two pieces so that
// the echo of the typed definition cannot match it.
const zshPty = `zmodload zsh/zpty || exit 3
dir=$1 out=$2 line=$3
zpty -b z zsh -f -i
zpty -w z "PS1='> '; fpath=($dir \$fpath); autoload -Uz compinit; compinit -u -d $out.zcd"
zpty -w z "dump() { print -r -- \"\$BUFFER\" > $out; zle -M DONE\"\"MARK; }; zle -N dump; bindkey '^X' dump"
zpty -w -n z "$line"$'\t'$'\x18'
zpty -r z junk '*DONEMARK*' || exit 4
zpty -d z
cat $out
`

func TestZshCompletion(t *testing.T) {
	zsh := needTool(t, "zsh", "apt-get install zsh")
	repo, env := shellSetup(t)
	dir := t.TempDir()
	testenv.WriteFile(t, filepath.Join(dir, "echoes.zsh"), completionScripts["zsh"])
	testenv.WriteFile(t, filepath.Join(dir, "zfunc", "_git-echoes"), completionScripts["zsh"])
	testenv.WriteFile(t, filepath.Join(dir, "mock.zsh"), zshMock)
	testenv.WriteFile(t, filepath.Join(dir, "pty.zsh"), zshPty)
	runShell(t, repo, env, zsh, "-n", filepath.Join(dir, "echoes.zsh"))

	// The function's logic, with the builtins mocked: sourced, and
	// autoloaded from $fpath (the file's body is then the function).
	for _, c := range []struct{ words, prefix, want string }{
		{"git-echoes sta", "sta", "compadd:status\ncompadd:start\ncompadd:stale\n"},
		{"echoes hash ''", "", "compadd:$(touch PWNED)\ncompadd:a:b\ncompadd:alpha\ncompadd:beta\ncompadd:my page\n"},
		{"echoes check --format=", "--format=", "compadd:--format=text\ncompadd:--format=json\ncompadd:--format=github\ncompadd:--format=codequality\n"},
		{"echoes append --payload=", "--payload=", "compadd:--payload=-\ncompset -P *=\n_files \n"},
		{"echoes help --install-man ''", "", "_files -/\n"},
	} {
		setup := "words=(" + c.words + "); CURRENT=${#words}; PREFIX='" + c.prefix + "'; "
		got := runShell(t, repo, env, zsh, "-f", "-c", "source "+dir+"/mock.zsh; source "+dir+"/echoes.zsh 2>/dev/null; "+setup+"_git-echoes")
		if got != c.want {
			t.Errorf("sourced, words (%s): got\n%s\nwant\n%s", c.words, got, c.want)
		}
		got = runShell(t, repo, env, zsh, "-f", "-c", "source "+dir+"/mock.zsh; fpath=("+dir+"/zfunc $fpath); autoload -Uz _git-echoes; "+setup+"_git-echoes")
		if got != c.want {
			t.Errorf("autoloaded, words (%s): got\n%s\nwant\n%s", c.words, got, c.want)
		}
	}
	noPwned(t, repo)

	// Sourced after compinit, it registers itself for git-echoes and
	// names the command for _git.
	got := runShell(t, repo, env, zsh, "-f", "-c", "autoload -Uz compinit; compinit -u -d "+dir+"/zcd; source "+dir+"/echoes.zsh; print -r -- ${_comps[git-echoes]}; zstyle -L ':completion:*:*:git:*'")
	if got != "_git-echoes\nzstyle ':completion:*:*:git:*' user-commands 'echoes:shared project memory for coding agents'\n" {
		t.Errorf("sourced after compinit:\n%s", got)
	}

	// The real thing, in a pseudo-terminal.
	for _, c := range []shellCase{
		{"git echoes hash al", "git echoes hash alpha \n"},
		{"git ech", "git echoes \n"},
		{"git-echoes check --format=git", "git-echoes check --format=github \n"},
		{"git echoes memory ha", "git echoes memory handoff \n"},
	} {
		out := filepath.Join(t.TempDir(), "buffer")
		got := runShell(t, repo, env, zsh, "-f", filepath.Join(dir, "pty.zsh"), filepath.Join(dir, "zfunc"), out, c.line)
		if got != c.want {
			t.Errorf("zsh, %q<TAB>: %q, want %q", c.line, got, c.want)
		}
	}
	noPwned(t, repo)
}

func TestFishCompletion(t *testing.T) {
	fish := needTool(t, "fish", "apt-get install fish")
	repo, env := shellSetup(t)
	home := strings.TrimPrefix(env[1], "HOME=")
	script := filepath.Join(home, ".config", "fish", "conf.d", "git-echoes.fish")
	testenv.WriteFile(t, script, completionScripts["fish"])
	runShell(t, repo, env, fish, "-n", script)
	for _, c := range []shellCase{
		{"git-echoes sta", "stale\twhich pages cite code that changed since they were written\nstart\trefresh the index and print the session context\nstatus\tread-only health report (alias of inspect)\n"},
		{"git echoes sta", "stale\twhich pages cite code that changed since they were written\nstart\trefresh the index and print the session context\nstatus\tread-only health report (alias of inspect)\n"},
		{"git --no-pager echoes check --format ", "codequality\ngithub\njson\ntext\n"},
		{"git echoes check --format=j", "--format=json\n"},
		{"git-echoes hash ", "$(touch PWNED)\na:b\nalpha\nbeta\nmy page\n"},
		{"git echoes memory init --scope t", "team\n"},
		{"git-echoes upsert --payload pay", "payload.json\n"},
		{"git-echoes upsert --payload=pay", "--payload=payload.json\n"},
		{"git ech", "echoes\tshared project memory for coding agents\n"},
	} {
		// Installed in conf.d, the script is there in every fish, with no
		// explicit source.
		got := runShell(t, repo, env, fish, "-c", "complete -C "+fishQuote(c.line))
		if got != c.want {
			t.Errorf("fish, %q: got\n%q\nwant\n%q", c.line, got, c.want)
		}
	}
	// Fish's own git completion still loads beside it.
	if _, err := os.Stat("/usr/share/fish/completions/git.fish"); err == nil {
		if got := runShell(t, repo, env, fish, "-c", "complete -C 'git chec'"); !strings.Contains(got, "checkout\t") {
			t.Errorf("git chec<TAB> with the script installed: %q", got)
		}
	}
	noPwned(t, repo)
}

func fishQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }
