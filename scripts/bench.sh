#!/usr/bin/env bash
# Measures git-echoes on large synthetic inputs, next to the baselines the
# issues name (grep -riF for search, git status for the Git-side commands).
# Prints the best of several runs of each command, in milliseconds. Nothing
# here is a pass/fail test: timings depend on the machine.
#
#   scripts/bench.sh [WORKDIR]     (default: a new temporary directory)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
mkdir -p "$work/bin"
# As released (.goreleaser.yaml): a cgo build is dynamically linked, and the
# dynamic loader and cgo's threads alone cost more than a Go hello-world.
CGO_ENABLED=0 go build -trimpath -o "$work/bin/git-echoes" ./cmd/git-echoes
go build -o "$work/bin/vaultgen" ./cmd/vaultgen
# Paired whole-process timing of a command against its yardstick
# (tools/pairbench: A B A B ..., medians and the ratio pair by pair).
go build -o "$work/bin/pairbench" ./tools/pairbench
pb="$work/bin/pairbench"
ge="$work/bin/git-echoes"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

best() { # best-of-7 wall time in ms of "$@"
  local best=999999 s e v
  for _ in 1 2 3 4 5 6 7; do
    s=$(date +%s%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s%N)
    v=$(( (e - s) / 1000000 )); (( v < best )) && best=$v
  done
  printf '%6d ms  %s\n' "$best" "$label"
}

big="$work/vault10k"
if [ ! -d "$big/EchoesVault" ]; then
  echo "generating a 10,000-page vault in $big"
  "$work/bin/vaultgen" -dir "$big" -pages 10000
  "$ge" --workspace "$big" rebuild-index >/dev/null
fi
small="$work/vault10"
if [ ! -d "$small/EchoesVault" ]; then
  "$work/bin/vaultgen" -dir "$small" -pages 10 -daily 5
  "$ge" --workspace "$small" rebuild-index >/dev/null
fi
echo "== start-up (issue 19): whole process, paired with a Go hello-world yardstick"
hello="$work/hello"
if [ ! -x "$hello/hello" ]; then
  mkdir -p "$hello"
  printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$hello/main.go"
  (cd "$hello" && GO111MODULE=off go build -o hello main.go)
fi
if [ -x "$pb" ]; then
  "$pb" -n 21 -vs "$hello/hello" -- "$ge" --version
  "$pb" -n 21 -vs "$hello/hello" -- sh -c "echo '{\"entry\": \"- bench\"}' | '$ge' --workspace '$small' append"
  sg="$work/staged"
  if [ ! -d "$sg/.git" ]; then
    git init -q "$sg"; (cd "$sg" && "$ge" init >/dev/null && git add -A)
  fi
  (cd "$sg" && "$pb" -n 21 -vs "$hello/hello" -- "$ge" check --staged)
  # GE_BASELINE=/path/to/an/older/git-echoes pairs append and check --staged
  # with it (issue 19: "<= the first wave's binary, same run"); build it
  # from its commit with the same flags, e.g.
  #   git archive d0294a6 | tar -x -C /tmp/wave1 &&
  #   (cd /tmp/wave1 && CGO_ENABLED=0 go build -trimpath -o /tmp/ge-wave1 ./cmd/git-echoes)
  if [ -n "${GE_BASELINE:-}" ]; then
    printf '{"entry": "- bench"}\n' >"$work/append.json"
    "$pb" -n 21 -vs "$GE_BASELINE --workspace $big append --payload $work/append.json" -- "$ge" --workspace "$big" append --payload "$work/append.json"
    (cd "$sg" && "$pb" -n 21 -vs "$GE_BASELINE check --staged" -- "$ge" check --staged)
  fi
else
  label="git echoes --version"; best "$ge" --version
  label="Go hello-world (yardstick)"; best "$hello/hello"
fi
echo "== 10,000-page vault (about 40 MB), outside Git"
label="git echoes rebuild-index"; best "$ge" --workspace "$big" rebuild-index
label="git echoes status (inspect)"; best "$ge" --workspace "$big" status
label="git echoes search (no match: full scan)"; best "$ge" --workspace "$big" search no-such-phrase-anywhere
label="grep -riF (same files, baseline)"; best grep -riF no-such-phrase-anywhere "$big/EchoesVault/pages"
label="git echoes hash (10,000 pages)"; best "$ge" --workspace "$big" hash page-05000.md
label="git echoes hash (10 pages)"; best "$ge" --workspace "$small" hash page-00005.md
label="git echoes append (10,000 pages)"; best sh -c "echo '{\"entry\": \"- bench\"}' | '$ge' --workspace '$big' append"
label="git echoes append (10 pages)"; best sh -c "echo '{\"entry\": \"- bench\"}' | '$ge' --workspace '$small' append"

repo="$work/repo100k"
if [ ! -d "$repo/.git" ]; then
  echo "generating a repository of 100,000 files with a 1,000-page vault in $repo"
  "$work/bin/vaultgen" -dir "$repo" -pages 1000 -extra-files 100000
  git -C "$repo" init -q
  (cd "$repo" && "$ge" init >/dev/null)
  git -C "$repo" add -A
  git -C "$repo" commit -qm bench
fi
echo "== 1,000-page vault in a Git repository of 100,000 files"
label="git status (baseline)"; best git -C "$repo" status --porcelain
label="git echoes status"; best "$ge" --workspace "$repo" status
label="git echoes check --staged"; best "$ge" check --workspace "$repo" --staged
label="git echoes check --rev HEAD"; best "$ge" check --workspace "$repo" --rev HEAD
label="git echoes check (work tree)"; best "$ge" check --workspace "$repo"

# The review commands (issue 9): diff of two revisions that touch 100 pages
# of a 10,000-page vault, next to git diff -M on the same paths; log --follow
# of one page over 1,000 commits, next to git log --follow.
rev="$work/review10k"
if [ ! -d "$rev/.git" ]; then
  echo "generating a 10,000-page vault with two revisions in $rev"
  "$work/bin/vaultgen" -dir "$rev" -pages 10000
  git -C "$rev" init -q
  (cd "$rev" && "$ge" init >/dev/null)
  git -C "$rev" add -A
  git -C "$rev" commit -qm base
  for i in $(seq -w 0 100 9999); do
    echo "edited for the benchmark" >> "$rev/EchoesVault/pages/page-0$i.md"
  done
  git -C "$rev" commit -qam "edit 100 pages"
fi
echo "== diff of 100 changed pages in a 10,000-page vault"
label="git diff -M --numstat (baseline)"; best git -C "$rev" diff -M --numstat HEAD~1 HEAD -- EchoesVault .ecc/memory
label="git echoes diff HEAD~1 HEAD --format json"; best "$ge" diff --workspace "$rev" HEAD~1 HEAD --format json
label="git echoes diff HEAD~1 HEAD --format markdown"; best "$ge" diff --workspace "$rev" HEAD~1 HEAD --format markdown

hist="$work/history1k"
if [ ! -d "$hist/.git" ]; then
  echo "generating 1,000 commits over a 1,000-page vault in $hist"
  git init -q "$hist"
  page() { printf -- '---\ntype: note\nstack: [go]\nstatus: active\nsummary: Page %d version %d.\n---\n\n# Page %d\n\nSome knowledge %d.\n' "$1" "$2" "$1" "$2"; }
  inline() { local c; c=$(page "$2" "$3"); printf 'M 100644 inline %s\ndata %d\n%s\n' "$1" "$(( ${#c} + 1 ))" "$c"; }
  {
    printf 'commit refs/heads/main\ncommitter bench <bench@example.com> 1600000000 +0000\ndata 4\nbase\n'
    for i in $(seq 0 999); do inline "EchoesVault/pages/page-$(printf %05d "$i").md" "$i" 0; done
    name=EchoesVault/pages/page-00007.md
    for n in $(seq 1 999); do
      printf 'commit refs/heads/main\ncommitter bench <bench@example.com> %d +0000\ndata 4\nedit\n' $((1600000000 + n))
      if [ "$n" = 500 ]; then printf 'R %s EchoesVault/pages/renamed.md\n' "$name"; name=EchoesVault/pages/renamed.md
      elif [ $((n % 10)) = 0 ]; then inline "$name" 7 "$n"
      else inline "EchoesVault/pages/page-$(printf %05d $((100 + n % 900))).md" $((100 + n % 900)) "$n"; fi
    done
  } | git -C "$hist" fast-import --quiet
  git -C "$hist" reset -q --hard main
fi
echo "== log of one page (100 of 1,000 commits, renamed half way)"
label="git log --follow --numstat (baseline)"; best git -C "$hist" log --follow --numstat -- EchoesVault/pages/renamed.md
label="git echoes log --follow"; best "$ge" log --workspace "$hist" --follow --limit 0 renamed.md
label="git log --numstat (baseline, no --follow)"; best git -C "$hist" log --numstat -- EchoesVault/pages/renamed.md
label="git echoes log"; best "$ge" log --workspace "$hist" --limit 0 renamed.md
# The same with a commit-graph file (git gc writes one; both read it).
histcg="$work/history1k-graph"
if [ ! -f "$histcg/.git/objects/info/commit-graph" ]; then
  rm -rf "$histcg"; cp -a "$hist" "$histcg"
  git -C "$histcg" commit-graph write --reachable
fi
label="git log --follow --numstat, commit-graph (baseline)"; best git -C "$histcg" log --follow --numstat -- EchoesVault/pages/renamed.md
label="git echoes log --follow, commit-graph"; best "$ge" log --workspace "$histcg" --follow --limit 0 renamed.md

# log --follow on a real project's history (issue 19, part 3): set
# ECHOES_BENCH_REPO to a clone of one (e.g. go-git's own history, 3,800
# commits in one pack of deep delta chains). The bench works on a copy with
# two commits on top: a page added to EchoesVault/ (the walk visits every
# commit and reads each root tree, and shows one) and README.md moved into
# the vault (followed across the move into the project's own history), as
# a project that adopts a vault looks; then the same with a commit-graph
# file with changed-path Bloom filters. Without the variable it says so
# and goes on.
if [ -n "${ECHOES_BENCH_REPO:-}" ] && [ -d "$ECHOES_BENCH_REPO" ]; then
  real="$work/realrepo"
  if [ ! -d "$real/.git" ]; then
    git clone -q --no-checkout "$ECHOES_BENCH_REPO" "$real"
    git -C "$real" read-tree HEAD
    blob=$(printf -- '---\ntype: note\nsummary: Added on top.\n---\n\n# Top\n' | git -C "$real" hash-object -w --stdin)
    git -C "$real" update-index --add --cacheinfo "100644,$blob,EchoesVault/pages/top.md"
    git -C "$real" commit -qm "vault page on top"
    if readme=$(git -C "$real" rev-parse -q --verify HEAD:README.md); then
      git -C "$real" update-index --force-remove README.md
      git -C "$real" update-index --add --cacheinfo "100644,$readme,EchoesVault/pages/readme.md"
      git -C "$real" commit -qm "README into the vault"
    fi
    rm -rf "$real-graph"; cp -a "$real" "$real-graph"
    git -C "$real-graph" commit-graph write --reachable --changed-paths
  fi
  echo "== log --follow on $(git -C "$real" rev-list --count HEAD) commits of $ECHOES_BENCH_REPO"
  for r in "$real" "$real-graph"; do
    sfx=""; [ "$r" = "$real-graph" ] && sfx=", commit-graph"
    label="git log --follow --numstat, page on top$sfx (baseline)"; best git -C "$r" log --follow --numstat -- EchoesVault/pages/top.md
    label="git echoes log --follow, page on top$sfx"; best "$ge" log --workspace "$r" --follow --limit 0 top.md
    if git -C "$r" rev-parse -q --verify HEAD:EchoesVault/pages/readme.md >/dev/null; then
      label="git log --follow --numstat, README moved in$sfx (baseline)"; best git -C "$r" log --follow --numstat -- EchoesVault/pages/readme.md
      label="git echoes log --follow, README moved in$sfx"; best "$ge" log --workspace "$r" --follow --limit 0 readme.md
    fi
  done
  # Every commit header of the history, read one after the other as a
  # walk without a commit-graph must (the inflater's share of log).
  echo "== commit headers of $ECHOES_BENCH_REPO, in process (go test -bench)"
  ECHOES_BENCH_REPO="$real" go test -run '^$' -bench 'BenchmarkCommitPrefixes' -benchtime 20x ./internal/gitrepo |
    awk '/^Benchmark/ { printf "%6.1f ms  %s\n", $3 / 1e6, $1 }'
else
  echo "== log --follow on a real repository: skipped (set ECHOES_BENCH_REPO to a clone of one)"
fi

# Memory freshness (issue 18): 1,000 pages citing 3,000 paths over a
# 10,000-commit history (each commit changes one line of one cited file;
# every 50th also edits a page), next to one git log --name-only over the
# same history, cold (no verdict cache) and warm.
fresh="$work/fresh10k"
if [ ! -f "$fresh/.git/objects/info/commit-graph" ]; then
  echo "generating 10,000 commits citing 3,000 files from 1,000 pages in $fresh"
  rm -rf "$fresh"; git init -q "$fresh"
  awk 'function p(f) { return sprintf("src/d%02d/f%04d.go", f % 100, f) }
    function file(f, v,   s, l) { s = sprintf("package d%02d\n\n", f % 100)
      for (l = 1; l <= 20; l++) s = s (l == 10 ? sprintf("// version %d of file %d\n", v, f) : sprintf("// line %d of file %d\n", l, f))
      return s }
    function pg(n, r) { return sprintf("---\ntype: note\nstack: go\nstatus: active\nsummary: \"page %d\"\nsources:\n  - %s\n  - %s:8-12\n---\n\nSee `%s` (revision %d).\n", n, p(3*n%3000), p((3*n+1)%3000), p((3*n+2)%3000), r) }
    function data(s) { printf "data %d\n%s\n", length(s), s }
    BEGIN { for (c = 0; c < 10000; c++) {
      printf "commit refs/heads/main\ncommitter bench <bench@example.com> %d +0000\n", 1700000000 + c * 60; data("commit " c)
      if (c == 0) { for (f = 0; f < 3000; f++) { printf "M 100644 inline %s\n", p(f); data(file(f, 0)) }
        for (n = 0; n < 1000; n++) { printf "M 100644 inline EchoesVault/pages/page-%04d.md\n", n; data(pg(n, 0)) }
        continue }
      f = c * 7919 % 3000; printf "M 100644 inline %s\n", p(f); data(file(f, c))
      if (c % 50 == 0) { n = c * 31 % 1000; printf "M 100644 inline EchoesVault/pages/page-%04d.md\n", n; data(pg(n, c)) } } }' \
    | LC_ALL=C git -C "$fresh" fast-import --quiet
  git -C "$fresh" reset -q --hard main
  (cd "$fresh" && "$ge" init >/dev/null)
  git -C "$fresh" commit-graph write --reachable
fi
echo "== stale: 1,000 pages, 3,000 cited paths, 10,000 commits"
# cold: the verdict and answer caches removed before each run; warm: answered from them.
cold="rm -f '$fresh/.git/echoes/stale/verdicts' '$fresh/.git/echoes/stale/rendered-'*; exec '$ge' stale --workspace '$fresh' --rev main --format json"
if [ -x "$pb" ]; then
  "$pb" -n 5 -vs "git -C $fresh log --format=%H --name-only main" -- sh -c "$cold"
  "$ge" stale --workspace "$fresh" --rev main --format json >/dev/null
  "$pb" -n 11 -vs "git -C $fresh log --format=%H --name-only main" -- "$ge" stale --workspace "$fresh" --rev main --format json
  "$pb" -n 11 -vs "git -C $fresh log --format=%H --name-only main" -- "$ge" stale --workspace "$fresh" --rev main --format text
else
  label="git log --format=%H --name-only (baseline)"; best git -C "$fresh" log --format=%H --name-only main
  label="git echoes stale --rev main (cold)"; best sh -c "$cold"
  "$ge" stale --workspace "$fresh" --rev main --format json >/dev/null
  label="git echoes stale --rev main (warm, json)"; best "$ge" stale --workspace "$fresh" --rev main --format json
  label="git echoes stale --rev main (warm, text)"; best "$ge" stale --workspace "$fresh" --rev main --format text
fi

# The same runs in process (go test -bench on this fixture, reused through
# FRESHNESS_BENCH_REPO): the cold check, the warm one, the warm one with
# its rendering (json, text), and the first check after a commit that
# touches nothing cited (the cache carried forward, next to the cold one).
echo "== stale in process: cold, warm, warm with rendering, after a commit (go test -bench)"
FRESHNESS_BENCH_REPO="$fresh" go test -run '^$' -bench 'BenchmarkStaleCold|BenchmarkStaleWarm|BenchmarkStaleAfterCommit' -benchtime 3x ./gitvault/freshness |
  awk '/^Benchmark/ { printf "%6d ms  %s\n", $3 / 1e6, $1 }'

# The merge driver on three versions of large, repetitive Markdown (issue 11
# item 12), next to `git merge-file` on the same bytes. Both write into a
# fresh copy of ours each run, as a merge does; the copy is part of both.
for n in 20000 60000; do
  m="$work/merge$n"
  if [ ! -f "$m/base.md" ]; then
    mkdir -p "$m"
    "$work/bin/vaultgen" -dir "$m" -merge-lines "$n"
  fi
  echo "== merging three versions of $n lines of repetitive Markdown (both conflict)"
  label="git merge-file (baseline)"; best sh -c "cp '$m/ours.md' '$m/a.md' && git merge-file '$m/a.md' '$m/base.md' '$m/theirs.md'"
  label="git echoes merge-driver"; best sh -c "cp '$m/ours.md' '$m/a.md' && '$ge' merge-driver '$m/base.md' '$m/a.md' '$m/theirs.md' page.md"
done

# The viewer (issue 14): every view of the 10,000-page vault, and the whole
# graph of 2,000 linked pages, rendered in process (go test -bench).
echo "== git echoes serve: views of the 10,000-page vault, graph of 2,000 nodes"
go test -run '^$' -bench 'BenchmarkViews10k|BenchmarkGraph2000' -benchtime 5x ./viewer |
  awk '/^Benchmark/ { printf "%6d ms  %s\n", $3 / 1e6, $1 }'

# Ranked search (issue 12): 10,000 pages + 5,000 memories, next to SQLite
# FTS5 through Python's sqlite3 on the same corpus and queries
# (scripts/bench-fts5.py). The go benchmarks give the in-process figures:
#   go test ./gitvault/find -run '^$' -bench Find -benchtime 20x
f="$work/find10k"
if [ ! -d "$f/EchoesVault" ]; then
  echo "generating a 10,000-page vault with 5,000 memories in $f"
  "$work/bin/vaultgen" -dir "$f" -pages 10000 -memories 5000
  "$ge" --workspace "$f" rebuild-index >/dev/null
fi
queries=("token refresh" "database migration" "retry backoff" "cache latency" "feature flag rollout"
  "certificate rotation" "queue worker" "shard partition" "gateway proxy" "tracing")
echo "== ranked search: 10,000 pages + 5,000 memories"
fcache="$f/.echoes-vault/cache/find"
label="git echoes find, first build (no index)"; best sh -c "rm -rf '$fcache' && cd '$f' && '$ge' find 'token refresh'"
(cd "$f" && "$ge" find warm >/dev/null)
for q in "token refresh" "tracing"; do
  label="git echoes find '$q' (warm, whole process)"; best sh -c "cd '$f' && '$ge' find '$q'"
done
page="$f/EchoesVault/pages/page-05000.md"
label="git echoes find after one changed page"; best sh -c "echo edit >> '$page' && cd '$f' && '$ge' find 'token refresh'"
printf '%6s MB  git echoes find index\n' "$(du -sm "$fcache" | cut -f1)"
python3 scripts/bench-fts5.py "$f" "${queries[@]}" | sed 's/^/        /'
if [ -x "$pb" ]; then
  echo "== find first build, paired with Python's FTS5 build (paired, quote the median cpu)"
  "$pb" -n 5 -vs "python3 scripts/bench-fts5.py --build-only $f" -- "$ge" --workspace "$f" find --rebuild
fi

# The same on real technical prose (issue 19): about 2,700 pages cut from
# the Markdown documentation in the Go module cache and GOROOT
# (scripts/prose-corpus.py), where a query matches a few documents, not
# all of them. Skipped, with the generator's message, without that source.
p="$work/prose"
if [ ! -d "$p/EchoesVault/pages" ] && python3 scripts/prose-corpus.py "$p"; then
  git init -q "$p" && (cd "$p" && "$ge" init >/dev/null)
fi
if [ -d "$p/EchoesVault/pages" ]; then
  pq=("context cancellation" "module proxy" "goroutine leak" "connection pool timeout" "tracing")
  echo "== ranked search: $(ls "$p/EchoesVault/pages" | wc -l) pages of real prose"
  label="git echoes find, first build (prose)"; best sh -c "cd '$p' && '$ge' find --rebuild"
  (cd "$p" && "$ge" find warm >/dev/null)
  for q in "${pq[@]:0:2}"; do
    label="git echoes find '$q' (prose, warm, whole process)"; best sh -c "cd '$p' && '$ge' find '$q'"
  done
  python3 scripts/bench-fts5.py "$p" "${pq[@]}" | sed 's/^/        /'
  if [ -x "$pb" ]; then
    "$pb" -n 5 -vs "python3 scripts/bench-fts5.py --build-only $p" -- "$ge" --workspace "$p" find --rebuild
  fi
fi

# hydrate with the page cache (issue 12, "One cache for every reader"):
# every run is a new process that loads the cache file. "full rebuild" runs
# with the cache file removed first (every page read and parsed, the file
# written), "one changed page" edits one page before each run, and the
# bare stat pass is find(1) stating the same files: the floor.
for n in 10000 100000; do
  hv="$work/hydrate$n"
  if [ ! -d "$hv/EchoesVault" ]; then
    echo "generating a $n-page vault in a Git repository in $hv"
    git init -q "$hv"
    "$work/bin/vaultgen" -dir "$hv" -pages "$n" -daily 5
    "$ge" --workspace "$hv" rebuild-index >/dev/null
  fi
  # The cache file is kept only in a Git repository (under .git/echoes).
  cache="$hv/.git/echoes/pages"
  # Pages written less than the racy granule (2 s) before the cache are
  # re-read until a run rewrites it: settle first.
  "$ge" --workspace "$hv" hydrate >/dev/null; sleep 3; "$ge" --workspace "$hv" hydrate >/dev/null
  echo "== hydrate on $n pages, in a Git repository"
  label="git echoes hydrate, full rebuild (no cache file)"; best sh -c "rm -rf '$cache'; '$ge' --workspace '$hv' hydrate"
  "$ge" --workspace "$hv" hydrate >/dev/null; sleep 3; "$ge" --workspace "$hv" hydrate >/dev/null
  label="git echoes hydrate, unchanged vault"; best "$ge" --workspace "$hv" hydrate
  label="git echoes hydrate, one changed page"; best sh -c "echo edit >> '$hv/EchoesVault/pages/page-00005.md'; '$ge' --workspace '$hv' hydrate"
  label="git echoes status, unchanged vault"; best "$ge" --workspace "$hv" status
  label="find -printf size/mtime/inode (bare stat pass, baseline)"; best find "$hv/EchoesVault/pages" -type f -printf '%s %T@ %i\n'
done

# The MCP server over stdio (issue 10, "Fast while it lives"): p50/p99 of
# 200 calls of each tool on 5,000 pages and 4,990 memories (the memory
# scan's 5,000-entry budget counts the kind directories too), cold (a new
# server per call: the first call of a process) and warm (one server).
# Issue 19: with BASE_GE (a git-echoes built from main) its server answers
# the same warm calls in the same run, alternating with this build's.
# In process, with a CPU profile of the warm calls on the same workspace:
#   GIT_ECHOES_MCPBENCH_DIR=$work/mcp5k go test ./mcpserver -run '^$' -bench WarmCall -cpuprofile cpu.out
go build -o "$work/bin/mcpbench" ./tools/mcpbench
"$work/bin/mcpbench" -bin "$ge" ${BASE_GE:+-vs "$BASE_GE"} -dir "$work/mcp5k" -pages 5000 -memories 4990 -calls 200

# Issue 22: the pre-commit gate of 1,000 staged pages, this build (A) against
# today's (B: BASE_GE, a git-echoes built from main), paired (tools/pairbench).
if [ -n "${BASE_GE:-}" ] && [ -x "$pb" ]; then
  r1k="$work/staged1k"
  if [ ! -d "$r1k/.git" ]; then
    "$work/bin/vaultgen" -dir "$r1k" -pages 1000 -daily 30
    git -C "$r1k" init -q
    (cd "$r1k" && "$ge" init >/dev/null)
    git -C "$r1k" add -A
  fi
  echo "== check --staged of 1,000 staged pages: this build (A) vs BASE_GE (B)"
  "$pb" -n 10 -vs "$BASE_GE check --workspace $r1k --staged" -- "$ge" check --workspace "$r1k" --staged
fi
