#!/usr/bin/env bash
# Tests the agent plugins (issue 23, plugin/) with the real clients, Claude
# Code (`claude`) and Codex (`codex`), found on PATH (.ci/run installs them
# from npm at pinned versions). No account is needed: nothing here talks to
# a model. Each client gets a fresh HOME; the checkout is added as a
# marketplace, the plugin installed from it and inspected, and the plugin's
# MCP server is started the way the client starts it, in scratch
# repositories, with and without the git-echoes binary on PATH.
#
#   scripts/plugins-check.sh
#
# Claude Code: `claude plugin validate --strict` of the plugin and of the
# marketplace (no errors, no warnings), `plugin marketplace add` of the
# checkout, `plugin install`, `plugin list`, `plugin details`, and
# `claude mcp list` showing the plugin's server connected in a repository
# with a vault (and failing to connect, with the install hint on the
# launcher's stderr, without the binary).
# Codex (which has no plugin validator): `plugin marketplace add` of the
# checkout, `plugin list --available` reading the manifest's version,
# `plugin add`, `mcp list --json` showing the server, and the server command
# exactly as Codex resolved it, run with and without the binary.
# In every case the scratch repository and the checkout are compared byte
# for byte before and after: the plugins write nothing.
#
# Without a client the script skips it and says so, except under CI=true,
# where a missing client fails. Exit 0 only if every check passed; the
# closing line is "plugins-check: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)
export PATH="/usr/local/go/bin:$PATH"

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
fail() { failed=$((failed + 1)); echo "FAIL  $*"; }
finish() {
  echo "plugins-check: $passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

version=$(python3 scripts/release/versions.py "$root") || { fail "scripts/release/versions.py"; finish; }

# The binary under test, alone in its folder, and a folder with only the
# tools the clients need besides it (sh, git, node for npm's shims): the
# PATH of a machine without git-echoes.
mkdir -p "$work/bin" "$work/sys"
if ! go build -o "$work/bin/git-echoes" ./cmd/git-echoes; then
  fail "go build ./cmd/git-echoes"
  finish
fi
for tool in sh bash git env node python3 cat dirname uname sed rm mkdir; do
  p=$(command -v "$tool") && ln -s "$p" "$work/sys/$tool"
done

# treehash DIR: one digest of every entry under DIR (.git included): type,
# mode, and contents or link target.
treehash() {
  python3 - "$1" <<'EOF'
import hashlib, os, stat, sys
top = sys.argv[1]
h = hashlib.sha256()
for dirpath, dirnames, filenames in os.walk(top):
    dirnames.sort()
    for name in sorted(dirnames + filenames):
        p = os.path.join(dirpath, name)
        st = os.lstat(p)
        rel = os.path.relpath(p, top)
        if stat.S_ISLNK(st.st_mode):
            h.update(f"L {rel} {os.readlink(p)}\n".encode())
        elif stat.S_ISDIR(st.st_mode):
            h.update(f"D {rel} {oct(st.st_mode)}\n".encode())
        else:
            with open(p, "rb") as f:
                h.update(f"F {rel} {oct(st.st_mode)} {hashlib.sha256(f.read()).hexdigest()}\n".encode())
print(h.hexdigest())
EOF
}
# The checkout's state as Git sees it (ignored files included): adding the
# marketplace and installing from it must not change it.
checkout_state() { git -C "$root" status --porcelain --ignored --untracked-files=all | sha256sum; }

# A client's isolated environment: its own HOME and Git configuration, no
# telemetry, no auto-update.
client_env() {
  local home=$1
  mkdir -p "$home"
  : >"$home/.gitconfig"
  export HOME=$home GIT_CONFIG_GLOBAL=$home/.gitconfig GIT_CONFIG_NOSYSTEM=1
  export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1
  unset CLAUDE_PLUGIN_ROOT PLUGIN_ROOT GIT_ECHOES_BIN ECC_MEMORY_HARNESS CODEX_HOME
}

# Scratch repositories: a git-echoes vault, a reference-engine vault, no vault.
scratch() {
  local dir=$1
  mkdir -p "$dir"
  git -C "$dir" init -q
  case ${2:-} in
    vault) (cd "$dir" && "$work/bin/git-echoes" init >/dev/null) ;;
    # A vault the reference engine initialised (its runtime, not ours).
    reference) python3 - "$root/internal/plugincheck/testdata/reference_vault.txtar" "$dir" <<'EOF'
import os, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
parts = re.split(r"^-- (.+?) --\n", text, flags=re.M)
for name, body in zip(parts[1::2], parts[2::2]):
    path = os.path.join(sys.argv[2], name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(body)
EOF
      ;;
  esac
}

# json_get FILE EXPR: python expression over the parsed JSON `d`.
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

missing_client() {
  if [ "${CI:-}" = true ]; then
    fail "$1 is not on PATH (CI=true: .ci/run installs it from npm)"
  else
    echo "skip  $1 is not on PATH (install: npm install -g $2)"
  fi
}

# ---------------------------------------------------------------- Claude Code
if claude_bin=$(command -v claude); then
  (
    passed=0
    failed=0
    client_env "$work/claude-home"
    clientpath=$(dirname "$claude_bin")
    echo "--- $("$claude_bin" --version)"

    for target in plugin .claude-plugin/marketplace.json; do
      if "$claude_bin" plugin validate --strict --json "$root/$target" >"$work/v.json" 2>"$work/v.err"; then
        n=$(json_get "$work/v.json" 'len(d["manifest"]["errors"]) + len(d["manifest"]["warnings"])')
        [ "$n" = 0 ] && ok "claude plugin validate --strict $target: passed, no errors or warnings" ||
          fail "claude plugin validate --strict $target: $n errors and warnings: $(cat "$work/v.json")"
      else
        fail "claude plugin validate --strict $target: $(cat "$work/v.json" "$work/v.err")"
      fi
    done
    "$claude_bin" plugin validate --strict --json "$root/plugin" >"$work/v.json" 2>/dev/null
    got=$(json_get "$work/v.json" '" ".join(sorted(s["name"] if isinstance(s, dict) else str(s) for s in d["provides"]["skills"])) + " | " + " ".join(h["event"] + ":" + h["matcher"] for h in d["provides"]["hooks"]) + " | " + " ".join(m["name"] for m in d["provides"]["mcpServers"])')
    want="git-echoes:echoes-end git-echoes:echoes-start git-echoes:echoes-status git-echoes:memory-handoff | SessionStart:startup|resume|clear|compact | echoes"
    [ "$got" = "$want" ] && ok "the plugin provides the four skills, the SessionStart hook and the echoes server" ||
      fail "validate provides: got [$got], want [$want]"

    before=$(checkout_state)
    if "$claude_bin" plugin marketplace add "$root" --json >"$work/add.log" 2>&1; then
      ok "claude plugin marketplace add <checkout>"
    else
      fail "claude plugin marketplace add <checkout>: $(cat "$work/add.log")"
    fi
    "$claude_bin" plugin marketplace list --json >"$work/ml.json" 2>/dev/null
    [ "$(json_get "$work/ml.json" '[m["name"] for m in d]')" = "['git-echoes']" ] &&
      ok "claude plugin marketplace list: git-echoes" || fail "marketplace list: $(cat "$work/ml.json")"
    if "$claude_bin" plugin install git-echoes@git-echoes --json >"$work/inst.json" 2>&1; then
      [ "$(json_get "$work/inst.json" 'd["outcome"] + " " + d["pluginId"]')" = "ok git-echoes@git-echoes" ] &&
        ok "claude plugin install git-echoes@git-echoes" || fail "install: $(cat "$work/inst.json")"
    else
      fail "claude plugin install git-echoes@git-echoes: $(cat "$work/inst.json")"
    fi
    "$claude_bin" plugin list --json >"$work/pl.json" 2>/dev/null
    [ "$(json_get "$work/pl.json" '[(p["id"], p["version"], p["enabled"]) for p in d]')" = "[('git-echoes@git-echoes', '$version', True)]" ] &&
      ok "claude plugin list: git-echoes@git-echoes $version, enabled" || fail "plugin list: $(cat "$work/pl.json")"
    if "$claude_bin" plugin details git-echoes@git-echoes >"$work/details.txt" 2>&1 &&
      grep -q "^git-echoes $version\$" "$work/details.txt" &&
      grep -Eq 'Skills \(4\) +echoes-end, echoes-start, echoes-status, memory-handoff' "$work/details.txt" &&
      grep -Eq 'Hooks \(1\) +SessionStart' "$work/details.txt" &&
      grep -Eq 'MCP servers \(1\) +echoes' "$work/details.txt"; then
      ok "claude plugin details: version $version, 4 skills, the SessionStart hook, the echoes server"
    else
      fail "claude plugin details: $(cat "$work/details.txt")"
    fi
    # Claude Code's own release check: plugin.json and the marketplace entry
    # agree (a dry run: no tag is made).
    (cd "$root" && "$claude_bin" plugin tag --dry-run plugin) >"$work/tag.txt" 2>&1 &&
      grep -q "^Version: $version (from plugin.json)\$" "$work/tag.txt" &&
      grep -q "marketplace.json (version: $version)\$" "$work/tag.txt" &&
      ok "claude plugin tag --dry-run: plugin.json and the marketplace entry agree on $version" ||
      fail "claude plugin tag --dry-run: $(cat "$work/tag.txt")"
    [ "$(checkout_state)" = "$before" ] && ok "the checkout is unchanged by marketplace add, install and tag --dry-run" ||
      fail "the checkout changed: $(git -C "$root" status --short)"

    # claude mcp list starts every server and reports its health.
    for kind in vault reference no-vault; do
      repo=$work/claude-$kind
      scratch "$repo" "$kind"
      h=$(treehash "$repo")
      (cd "$repo" && PATH="$work/bin:$clientpath:$work/sys" "$claude_bin" mcp list) >"$work/mcp.txt" 2>&1
      grep -Eq '^plugin:git-echoes:echoes: sh .*/launch\.sh mcp - ✔ Connected$' "$work/mcp.txt" &&
        ok "claude mcp list ($kind): plugin:git-echoes:echoes connected" || fail "claude mcp list ($kind): $(cat "$work/mcp.txt")"
      (cd "$repo" && PATH="$clientpath:$work/sys" "$claude_bin" mcp list) >"$work/mcp.txt" 2>&1
      grep -Eq '^plugin:git-echoes:echoes: .*✘ Failed to connect' "$work/mcp.txt" &&
        ok "claude mcp list ($kind) without git-echoes: the server fails to connect" || fail "claude mcp list ($kind) without the binary: $(cat "$work/mcp.txt")"
      [ "$(treehash "$repo")" = "$h" ] && ok "the $kind repository is unchanged byte for byte" || fail "claude mcp list changed the $kind repository"
    done

    # What the launcher told Claude Code when the binary was missing: the
    # hook and the server, with the plugin root Claude passes.
    plugin_root=$(json_get "$work/pl.json" 'd[0].get("readFromFolder") or d[0]["installPath"]')
    repo=$work/claude-vault
    h=$(treehash "$repo")
    out=$(cd "$repo" && echo '{"source": "startup"}' | env PATH="$clientpath:$work/sys" CLAUDE_PLUGIN_ROOT="$plugin_root" \
      sh -c "$(json_get "$root/plugin/hooks/claude.json" 'd["hooks"]["SessionStart"][0]["hooks"][0]["command"]')" 2>"$work/err.txt")
    rc=$?
    [ "$rc" = 2 ] && [ -z "$out" ] && [ "$(wc -l <"$work/err.txt")" = 1 ] &&
      grep -q '^{"ok": false, "error": "git-echoes is not installed: .*#install' "$work/err.txt" &&
      ok "the installed hook without git-echoes: exit 2, one-line JSON install hint" ||
      fail "hook without the binary: exit $rc, stdout [$out], stderr [$(cat "$work/err.txt")]"
    out=$(cd "$repo" && echo '{"source": "startup"}' | env PATH="$work/bin:$clientpath:$work/sys" CLAUDE_PLUGIN_ROOT="$plugin_root" \
      sh -c "$(json_get "$root/plugin/hooks/claude.json" 'd["hooks"]["SessionStart"][0]["hooks"][0]["command"]')" 2>"$work/err.txt")
    case $out in
      '{"continue": true, "suppressOutput": true, "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "EchoesVault is available.'*'### EchoesVault'*)
        [ -s "$work/err.txt" ] && fail "hook wrote to stderr: $(cat "$work/err.txt")" || ok "the installed hook with git-echoes: the status card" ;;
      *) fail "hook with the binary: [$out] [$(cat "$work/err.txt")]" ;;
    esac
    [ "$(treehash "$repo")" = "$h" ] && ok "the hook runs left the repository unchanged byte for byte" || fail "the hook changed the repository"
    # Turning it off (README): plugin disable removes the server (and the
    # hook and skills) from every session; enable brings it back.
    "$claude_bin" plugin disable git-echoes@git-echoes >/dev/null 2>&1
    (cd "$work/claude-vault" && PATH="$work/bin:$clientpath:$work/sys" "$claude_bin" mcp list) >"$work/mcp.txt" 2>&1
    ! grep -q 'plugin:git-echoes' "$work/mcp.txt" && ok "claude plugin disable: no plugin server any more" ||
      fail "after claude plugin disable: $(cat "$work/mcp.txt")"
    "$claude_bin" plugin enable git-echoes@git-echoes >/dev/null 2>&1
    (cd "$work/claude-vault" && PATH="$work/bin:$clientpath:$work/sys" "$claude_bin" mcp list) >"$work/mcp.txt" 2>&1
    grep -q '^plugin:git-echoes:echoes: .*✔ Connected$' "$work/mcp.txt" && ok "claude plugin enable: the server is back" ||
      fail "after claude plugin enable: $(cat "$work/mcp.txt")"
    echo "claude: $passed passed, $failed failed" >"$work/claude.count"
  )
  read -r _ p _ f _ <"$work/claude.count" 2>/dev/null || { p=0; f=1; }
  passed=$((passed + p))
  failed=$((failed + f))
else
  missing_client claude @anthropic-ai/claude-code
fi

# ---------------------------------------------------------------------- Codex
if codex_bin=$(command -v codex); then
  (
    passed=0
    failed=0
    client_env "$work/codex-home"
    clientpath=$(dirname "$codex_bin")
    # Codex warns on every run that it keeps no helper binaries under /tmp.
    codex() { "$codex_bin" "$@" 2> >(grep -v '^WARNING: proceeding, even though we could not create PATH aliases' >&2); }
    echo "--- $(codex --version)"

    before=$(checkout_state)
    codex plugin marketplace add "$root" >"$work/cadd.txt" 2>&1
    grep -q 'Added marketplace `git-echoes`' "$work/cadd.txt" &&
      ok "codex plugin marketplace add <checkout>: git-echoes" || fail "codex marketplace add: $(cat "$work/cadd.txt")"
    codex plugin list --json --available >"$work/cpl.json" 2>"$work/cpl.err"
    [ "$(json_get "$work/cpl.json" '[(p["pluginId"], p["version"], p["installPolicy"]) for p in d["available"]]')" = "[('git-echoes@git-echoes', '$version', 'AVAILABLE')]" ] &&
      ok "codex plugin list --available: git-echoes@git-echoes $version (the manifest was read)" ||
      fail "codex plugin list --available: $(cat "$work/cpl.json" "$work/cpl.err")"
    codex plugin add git-echoes@git-echoes >"$work/cpa.txt" 2>&1
    grep -q 'Added plugin `git-echoes` from marketplace `git-echoes`' "$work/cpa.txt" &&
      ok "codex plugin add git-echoes@git-echoes" || fail "codex plugin add: $(cat "$work/cpa.txt")"
    codex plugin list --json >"$work/cpl.json" 2>/dev/null
    [ "$(json_get "$work/cpl.json" '[(p["pluginId"], p["version"], p["installed"], p["enabled"]) for p in d["installed"]]')" = "[('git-echoes@git-echoes', '$version', True, True)]" ] &&
      ok "codex plugin list: git-echoes@git-echoes $version installed and enabled" || fail "codex plugin list: $(cat "$work/cpl.json")"
    cache=$HOME/.codex/plugins/cache/git-echoes/git-echoes/$version
    missing=
    for f in .codex-plugin/plugin.json hooks/codex.json mcp/codex.json launch.sh skills/echoes-start/SKILL.md \
      skills/echoes-end/SKILL.md skills/echoes-status/SKILL.md skills/memory-handoff/SKILL.md; do
      [ -f "$cache/$f" ] || missing="$missing $f"
    done
    [ -z "$missing" ] && ok "the installed Codex plugin holds its manifest, hook, server, launcher and skills" || fail "missing in $cache:$missing"
    [ "$(checkout_state)" = "$before" ] && ok "the checkout is unchanged by marketplace add and plugin add" ||
      fail "the checkout changed: $(git -C "$root" status --short)"

    for kind in vault reference no-vault; do
      repo=$work/codex-$kind
      scratch "$repo" "$kind"
      h=$(treehash "$repo")
      (cd "$repo" && codex mcp list --json) >"$work/cmcp.json" 2>/dev/null
      got=$(json_get "$work/cmcp.json" '[(s["name"], s["enabled"], s["transport"]["command"], s["transport"]["args"][0], s["transport"]["env"]) for s in d]')
      [ "$got" = "[('echoes', True, 'sh', '-c', {'ECC_MEMORY_HARNESS': 'codex'})]" ] &&
        ok "codex mcp list ($kind): the plugin's echoes server, enabled, harness codex" || fail "codex mcp list ($kind): $got"
      # Codex cannot start a server without a session (and an account):
      # start exactly the command it resolved, as it would, in the project.
      script=$(json_get "$work/cmcp.json" 'd[0]["transport"]["args"][1]')
      init='{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "plugins-check", "version": "0"}}}'
      out=$(cd "$repo" && echo "$init" | env PATH="$work/bin:$work/sys" ECC_MEMORY_HARNESS=codex sh -c "$script" 2>"$work/err.txt")
      case $out in
        '{"jsonrpc":"2.0","id":1,"result":{'*'"serverInfo":{"name":"git-echoes"'*) ok "Codex's resolved server command ($kind): git-echoes answers initialize" ;;
        *) fail "Codex's server command ($kind): [$out] [$(cat "$work/err.txt")]" ;;
      esac
      out=$(cd "$repo" && echo "$init" | env PATH="$work/sys" ECC_MEMORY_HARNESS=codex sh -c "$script" 2>"$work/err.txt")
      rc=$?
      [ "$rc" = 2 ] && [ -z "$out" ] && [ "$(wc -l <"$work/err.txt")" = 1 ] &&
        grep -q '^{"ok": false, "error": "git-echoes is not installed: .*#install' "$work/err.txt" &&
        ok "Codex's server command ($kind) without git-echoes: exit 2, one-line JSON install hint" ||
        fail "Codex's server command without the binary ($kind): exit $rc [$out] [$(cat "$work/err.txt")]"
      # The hook, with the plugin root Codex gives plugin hooks.
      out=$(cd "$repo" && echo '{"source": "startup"}' | env PATH="$work/bin:$work/sys" PLUGIN_ROOT="$cache" \
        sh -c "$(json_get "$cache/hooks/codex.json" 'd["hooks"]["SessionStart"][0]["hooks"][0]["command"]')" 2>"$work/err.txt")
      if [ "$kind" != no-vault ]; then
        case $out in *'"additionalContext": "EchoesVault is available.'*'### EchoesVault'*) ok "the installed Codex hook ($kind): the status card" ;;
          *) fail "Codex hook ($kind): [$out] [$(cat "$work/err.txt")]" ;; esac
      else
        [ "$out" = '{"continue": true, "suppressOutput": true}' ] && ok "the installed Codex hook ($kind): the silent answer" ||
          fail "Codex hook ($kind): [$out] [$(cat "$work/err.txt")]"
      fi
      [ "$(treehash "$repo")" = "$h" ] && ok "the $kind repository is unchanged byte for byte" || fail "the Codex checks changed the $kind repository"
    done
    # Turning parts off (README): the server alone, then the whole plugin.
    cp "$HOME/.codex/config.toml" "$work/config.toml"
    printf '\n[plugins."git-echoes@git-echoes".mcp_servers.echoes]\nenabled = false\n' >>"$HOME/.codex/config.toml"
    (cd "$work/codex-vault" && codex mcp list --json) >"$work/cmcp.json" 2>/dev/null
    [ "$(json_get "$work/cmcp.json" '[(s["name"], s["enabled"]) for s in d]')" = "[('echoes', False)]" ] &&
      ok "codex: mcp_servers.echoes.enabled = false under the plugin turns the server off" || fail "codex server off: $(cat "$work/cmcp.json")"
    cp "$work/config.toml" "$HOME/.codex/config.toml"
    sed -i '/^\[plugins."git-echoes@git-echoes"\]$/,/^enabled/ s/^enabled = true$/enabled = false/' "$HOME/.codex/config.toml"
    (cd "$work/codex-vault" && codex mcp list --json) >"$work/cmcp.json" 2>/dev/null
    [ "$(json_get "$work/cmcp.json" 'len(d)')" = 0 ] && ok "codex: enabled = false on the plugin turns it all off" ||
      fail "codex plugin off: $(cat "$work/cmcp.json" "$HOME/.codex/config.toml")"
    cp "$work/config.toml" "$HOME/.codex/config.toml"
    echo "codex: $passed passed, $failed failed" >"$work/codex.count"
  )
  read -r _ p _ f _ <"$work/codex.count" 2>/dev/null || { p=0; f=1; }
  passed=$((passed + p))
  failed=$((failed + f))
else
  missing_client codex @openai/codex
fi

finish
