#!/usr/bin/env bash
# The GitHub Action's work (issue 20, action.yml): the gate, the memory
# review, staleness and the pull-request comment, with the environment a
# runner provides.
#
#   scripts/forge/github.sh
#
# Environment (action.yml sets the GE_* from its inputs):
#   GE_BIN         the git-echoes binary (scripts/forge/install.sh's path)
#   GE_CHECK       true: run the gate, `check --rev REV --format github`; on a
#                  pull request `check --rev BASE...REV`, which also warns
#                  memory-stale (pages citing code the pull request changed
#                  but did not update), when the binary has it
#   GE_STRICT      true: warnings fail the gate too (--strict)
#   GE_REVIEW      true: `diff BASE...HEAD --format markdown` into the summary
#   GE_STALE       true: `stale --rev REV --format markdown`, when the binary has it
#   GE_COMMENT     true: one pull-request comment, updated in place
#   GE_REV         the commit to gate; default: the pull request's head, else GITHUB_SHA
#   GE_TOKEN       token for the comment (github.token; needs pull-requests: write)
#   GE_COMMENT_AUTHOR  the login whose marked comment is updated (default
#                  github-actions[bot]; empty: any)
#   GE_SUMMARY_LIMIT   bytes of job summary this step may write (default
#                  1048576, GitHub's limit per step)
#   GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_SHA, GITHUB_REPOSITORY,
#   GITHUB_API_URL, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY: the runner's
#
# Runs in the repository to check (the action's working-directory).
# Outputs: result (passed, failed, error, skipped), errors, warnings, vault
# (true, false), review (path of the Markdown review), comment (created,
# updated, skipped). Exit 0 when the gate passed or was not asked for; 1 when
# it failed; 2 when it could not run (unreadable repository, a commit not in
# the clone). The comment never decides the exit status.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/forge/report.sh
. "$here/report.sh"

say() { printf 'git-echoes: %s\n' "$*" >&2; }
# Workflow commands take their data escaped as the Actions toolkit does.
gh_escape() { local s=${1//%/%25}; s=${s//$'\r'/%0D}; printf '%s' "${s//$'\n'/%0A}"; }
fail() { # fail STATUS MESSAGE: an ::error annotation and an exit
  printf '::error title=git-echoes::%s\n' "$(gh_escape "$2")"
  say "error: $2"
  output result error
  exit "$1"
}
output() { [ -z "${GITHUB_OUTPUT:-}" ] || printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; }
summary() { [ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat >>"$GITHUB_STEP_SUMMARY"; }
count() { if [ "$1" = 1 ]; then echo "1 $2"; else echo "$1 $3"; fi; }
truthy() { case ${1:-} in true|True|TRUE|yes|1) return 0 ;; *) return 1 ;; esac; }

bin=${GE_BIN:-git-echoes}
command -v "$bin" >/dev/null 2>&1 || [ -x "$bin" ] || fail 2 "git-echoes binary not found: $bin"
limit=${GE_SUMMARY_LIMIT:-1048576}
work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/git-echoes-action.XXXXXX")
trap 'rm -rf "$work"' EXIT
out_dir=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
git rev-parse --git-dir >/dev/null 2>&1 || fail 2 "$(pwd) is not a Git repository: check out the repository first (actions/checkout)"

# --- what to compare ------------------------------------------------------------
base= head= pr= head_repo= base_repo=
if [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ] &&
  grep -q '"pull_request"' "$GITHUB_EVENT_PATH"; then
  command -v jq >/dev/null 2>&1 || fail 2 "jq is needed to read the pull request event (GitHub-hosted runners have it; install it on self-hosted ones)"
  base=$(jq -r '.pull_request.base.sha // empty' "$GITHUB_EVENT_PATH")
  head=$(jq -r '.pull_request.head.sha // empty' "$GITHUB_EVENT_PATH")
  pr=$(jq -r '.pull_request.number // empty' "$GITHUB_EVENT_PATH")
  head_repo=$(jq -r '.pull_request.head.repo.full_name // empty' "$GITHUB_EVENT_PATH")
  base_repo=$(jq -r '.pull_request.base.repo.full_name // empty' "$GITHUB_EVENT_PATH")
fi
rev=${GE_REV:-${head:-${GITHUB_SHA:-HEAD}}}
short=${rev:0:12}
export GE_REV_SHORT=$short

is_shallow() { [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; }
has_commit() { git cat-file -e "$1^{commit}" 2>/dev/null; }

# fetch_commit SHA: fetch the commit by id when the clone lacks it (the
# fetch may fail: has_commit says).
fetch_commit() {
  has_commit "$1" && return 0
  say "fetching $1 (not in the clone)"
  local depth=()
  is_shallow && depth=(--depth=1)
  git fetch --quiet --no-tags ${depth[@]+"${depth[@]}"} origin "$1" 2>"$work/fetch.err" || true
}

# ensure_commit SHA: the commit in the object store, fetched by id when the
# checkout left it out (actions/checkout of a pull request fetches only the
# merge commit GitHub made, not the head or the base).
ensure_commit() {
  fetch_commit "$1"
  has_commit "$1" && return 0
  fail 2 "commit $1 is not in the clone and could not be fetched from origin ($(head -n 1 "$work/fetch.err")); check out with actions/checkout and fetch-depth: 0"
}

# try_merge_base BASE HEAD: deepen a shallow clone until the merge base is
# there (as far as 1,000 commits on each side); status 1 when it is not.
try_merge_base() {
  git merge-base "$1" "$2" >/dev/null 2>&1 && return 0
  if is_shallow; then
    local d
    for d in 50 200 1000; do
      say "shallow clone without the merge base of ${1:0:12} and ${2:0:12}: fetching $d more commits of each"
      git fetch --quiet --no-tags --deepen="$d" origin "$1" "$2" 2>"$work/fetch.err" || break
      git merge-base "$1" "$2" >/dev/null 2>&1 && return 0
    done
  fi
  return 1
}

# ensure_merge_base BASE HEAD: try_merge_base, else say what to set.
ensure_merge_base() {
  try_merge_base "$1" "$2" && return 0
  if is_shallow; then
    fail 2 "the clone is shallow and lacks the merge base of the base ${1:0:12} and the head ${2:0:12} of the pull request (not within 1,000 commits, or the fetch failed); set fetch-depth: 0 on actions/checkout"
  fi
  fail 2 "the base ${1:0:12} and the head ${2:0:12} have no merge base: nothing to review as base...head"
}

# --- the gate ---------------------------------------------------------------------
status=0 result=skipped errors=0 warnings=0 vault=false check_line=
if truthy "${GE_CHECK:-true}"; then
  ensure_commit "$rev"
  # On a pull request the gate checks the range from the merge base, so
  # that it also warns memory-stale (issue 18); a binary without ranges
  # (before memory-stale), or a clone without the merge base, gates the
  # commit alone, and the review below says what is missing.
  gate_rev=$rev
  if [ -n "$base" ] && "$bin" check --help 2>/dev/null | grep -q 'memory-stale'; then
    fetch_commit "$base"
    if has_commit "$base" && try_merge_base "$base" "$rev"; then
      gate_rev=$base...$rev
    else
      say "no merge base of ${base:0:12} and $short in the clone: the gate checks $short alone (no memory-stale)"
    fi
  fi
  args=(check --rev "$gate_rev" --format github)
  truthy "${GE_STRICT:-false}" && args+=(--strict)
  "$bin" "${args[@]}" >"$work/check.github" 2>"$work/check.err"
  status=$?
  # The annotations go to the log, where the runner turns them into
  # annotations on the offending lines.
  cat "$work/check.github"
  case $status in
    0|1) ;;
    *) fail 2 "git echoes check --rev ${gate_rev/$rev/$short} could not read the snapshot: $(head -n 1 "$work/check.err")" ;;
  esac
  # One annotation per finding, each on one line (the message is escaped).
  errors=$(grep -c '^::error file=' "$work/check.github" || true)
  warnings=$(grep -c '^::warning file=' "$work/check.github" || true)
  check_line=$(tail -n 1 "$work/check.github")
  case $check_line in
    *"no EchoesVault here"*) vault=false ;;
    *) vault=true ;;
  esac
  if [ "$status" -eq 0 ]; then result=passed; else result=failed; fi
  [ "$vault" = true ] || say "no EchoesVault in $short: nothing to check, the gate passes"
  # The JSON of the same commit for the summary's table (the gate's
  # decision is the exit status above).
  "$bin" check --rev "$gate_rev" --format json >"$work/check.json" 2>/dev/null
fi
output result "$result"
output errors "$errors"
output warnings "$warnings"
output vault "$vault"

# --- the review -------------------------------------------------------------------
review_file=
review_note=
if truthy "${GE_REVIEW:-true}"; then
  if [ -n "$base" ] && [ -n "$head" ]; then
    ensure_commit "$base"
    ensure_commit "$head"
    ensure_merge_base "$base" "$head"
    review_file=$out_dir/git-echoes-review.md
    if ! "$bin" diff "$base...$head" --format markdown >"$review_file" 2>"$work/diff.err"; then
      fail 2 "git echoes diff ${base:0:12}...${head:0:12} failed: $(head -n 1 "$work/diff.err")"
    fi
    output review "$review_file"
  else
    review_note="No pull request in this event (${GITHUB_EVENT_NAME:-unknown}): the memory review compares a pull request's base and head."
    say "$review_note"
  fi
fi

# --- staleness ----------------------------------------------------------------------
stale_file= stale_note=
if truthy "${GE_STALE:-false}"; then
  if "$bin" stale --help >/dev/null 2>&1; then
    stale_file=$work/stale.md
    "$bin" stale --rev "$rev" --format markdown >"$stale_file" 2>"$work/stale.err"
    case $? in
      0|1) ;;
      *) stale_note="git echoes stale failed: $(head -n 1 "$work/stale.err")"; stale_file= ;;
    esac
  else
    stale_note="stale: not available in this version ($("$bin" --version 2>/dev/null | head -n 1)); it needs a git-echoes release with \`git echoes stale\`."
    say "$stale_note"
  fi
fi

# --- the report -----------------------------------------------------------------------
marker='<!-- git-echoes:pull-request-report -->'
# report BUDGET: the whole Markdown report within BUDGET bytes. The fixed
# parts first, then the review and staleness, and the findings table takes
# what is left (the annotations in the log have them all).
report() {
  local budget=$1 f=$work/report.head
  {
    printf '%s\n## git-echoes\n\n' "$marker"
    if truthy "${GE_CHECK:-true}"; then
      case $result in
        passed) printf '**Gate passed** on `%s`' "$short" ;;
        failed) printf '**Gate failed** on `%s`' "$short" ;;
      esac
      printf ': %s, %s%s.' "$(count "$errors" error errors)" "$(count "$warnings" warning warnings)" \
        "$(truthy "${GE_STRICT:-false}" && echo ' (--strict: warnings fail too)')"
      [ "$vault" = true ] || printf ' No EchoesVault in this commit: nothing to check.'
      printf '\n\n'
    fi
  } >"$f"
  local rest=$work/report.rest
  : >"$rest"
  if [ -n "$review_file" ]; then
    printf '### Memory review (`%s...%s`)\n\n' "${base:0:12}" "${head:0:12}" >>"$rest"
    cat "$review_file" >>"$rest"
    printf '\n' >>"$rest"
  elif [ -n "$review_note" ]; then
    printf '%s\n\n' "$review_note" >>"$rest"
  fi
  if [ -n "$stale_file" ]; then
    printf '### Stale memory\n\n' >>"$rest"
    cat "$stale_file" >>"$rest"
    printf '\n' >>"$rest"
  elif [ -n "$stale_note" ]; then
    printf '%s\n\n' "$stale_note" >>"$rest"
  fi
  local used
  used=$(($(wc -c <"$f") + 0))
  cat "$f"
  local rest_budget=$((budget - used - 2048))
  local findings_budget=0
  local rest_size
  rest_size=$(wc -c <"$rest" | tr -d ' ')
  if [ "$rest_size" -gt "$rest_budget" ]; then
    # The review alone is over: cut it, and the findings get 2 KiB.
    findings_budget=2048
  else
    findings_budget=$((budget - used - rest_size - 64))
  fi
  if [ -f "$work/check.json" ] && [ "$errors" -gt 0 -o "$warnings" -gt 0 ]; then
    printf '### Findings\n\n'
    findings_section "$work/check.json" "$findings_budget"
    printf '\n'
  fi
  bounded_file "$rest" "$rest_budget" "the report"
}

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  report "$limit" >"$work/summary.md"
  summary <"$work/summary.md"
fi

# --- the comment ------------------------------------------------------------------------
comment=skipped
if truthy "${GE_COMMENT:-false}"; then
  if [ -z "$pr" ]; then
    say "comment: skipped: no pull request in this event"
  else
    # 65,536 characters is GitHub's limit for a comment body; bytes are a
    # safe bound for characters.
    report 65000 >"$work/comment.md"
    comment=$(GE_PR=$pr GE_BODY=$work/comment.md GE_MARKER=$marker GE_HEAD_REPO=$head_repo GE_BASE_REPO=$base_repo \
      bash "$here/comment.sh") || comment=skipped
  fi
fi
output comment "$comment"

case $result in
  failed) say "gate failed: $check_line"; exit 1 ;;
esac
exit 0
