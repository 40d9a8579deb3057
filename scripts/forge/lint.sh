#!/usr/bin/env bash
# Lints the GitHub Actions files of the repository with actionlint (issue
# 20): every workflow under .github/workflows/ (forge.yml uses the action
# with `uses: ./`, so action.yml's inputs and outputs are checked through
# it), and every YAML snippet of README.md and docs/*.md that is a workflow
# (a top-level jobs: key), with `uses: git-echoes/git-echoes@REF` pointed at
# this checkout's action.yml, so the documented inputs must exist.
#
#   scripts/forge/lint.sh [ACTIONLINT]
#
# ACTIONLINT defaults to actionlint on PATH. Prints "lint: N passed, N
# failed"; exit 1 when any file failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd -P)
actionlint=${1:-actionlint}
command -v "$actionlint" >/dev/null 2>&1 || { echo "lint: $actionlint not found" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
lint() { # lint DIR LABEL FILES...: actionlint in DIR, counted
  local dir=$1 label=$2
  shift 2
  # shellcheck and pyflakes are not part of this gate (not installed).
  if (cd "$dir" && "$actionlint" -shellcheck= -pyflakes= "$@"); then
    passed=$((passed + 1)); echo "ok    $label"
  else
    failed=$((failed + 1)); echo "FAIL  $label"
  fi
}

for f in .github/workflows/*.yml .github/workflows/*.yaml; do
  [ -f "$f" ] || continue
  lint "$root" "$f" "$f"
done

# The snippets: a copy of the repository's action.yml and scripts, and each
# workflow snippet as a workflow of that copy.
mkdir -p "$work/repo/.github/workflows"
# actionlint finds the project (and so the local action of `uses: ./`) by
# its .git.
git init -q "$work/repo"
cp action.yml "$work/repo/"
n=0
for doc in README.md docs/*.md; do
  awk -v out="$work/snip.${doc//[^A-Za-z0-9]/_}" '
    /^```ya?ml[[:space:]]*$/ { inside = 1; n++; file = sprintf("%s.%d.yml", out, n); line = NR; next }
    /^```/ && inside { inside = 0; close(file); print file " " line; next }
    inside { print > file }
  ' "$doc" >"$work/list"
  while read -r file line; do
    grep -q '^jobs:' "$file" || continue
    n=$((n + 1))
    sed -E 's#uses: git-echoes/git-echoes@[^[:space:]]+#uses: ./#' "$file" >"$work/repo/.github/workflows/snippet-$n.yml"
    lint "$work/repo" "$doc:$line (workflow snippet)" ".github/workflows/snippet-$n.yml"
  done <"$work/list"
done
[ "$n" -gt 0 ] || { echo "lint: no workflow snippet found in the docs" >&2; failed=$((failed + 1)); }
echo "lint: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
