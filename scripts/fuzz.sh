#!/usr/bin/env bash
# Runs every Go fuzz target of the module, one at a time, for a fixed budget
# each, so the total time is bounded (targets x budget + compile):
#
#   bash scripts/fuzz.sh [--keep] [--report-new] [SECONDS]   (default 8 s per target)
#
# Targets are discovered with `go test -list '^Fuzz'` in every package, so a
# new Fuzz function is fuzzed without editing this script. A target that
# fails is reported with the input file go wrote under the package's
# testdata/fuzz/<Target>/ (commit it: it becomes a regression seed that
# plain `go test` replays) and its content; the other targets still run and
# the script exits non-zero at the end.
#
# Inputs that pass but widened coverage stay in go's fuzz cache,
# $(go env GOCACHE)/fuzz/<import path>/<Target>/. With --keep, the entries of
# that cache not already in testdata/fuzz/<Target>/ are copied there, so a
# developer can commit the corpus the fuzzer found. CI runs without --keep.
#
# With --report-new, a target whose only failure is a NEW input the fuzzer
# just found is reported (input printed, a GitHub ::error:: annotation,
# counted as "new findings") without making the script fail. Everything
# else still fails it: a build error, a seed of testdata/fuzz that fails, a
# crash with no input file. CI uses it because a short random search is not
# deterministic: whether it finds a new input in 8 s is luck, and a gate that
# passes or fails by luck trains people to re-run it. A finding is fixed and
# its input committed, after which the plain `go test ./...` step gates on it
# for good.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

keep=0
report_new=0
secs=8
for arg in "$@"; do
  case "$arg" in
    --keep) keep=1 ;;
    --report-new) report_new=1 ;;
    ''|*[!0-9]*) echo "usage: scripts/fuzz.sh [--keep] [--report-new] [SECONDS]" >&2; exit 2 ;;
    *) secs=$arg ;;
  esac
done
[ "$secs" -gt 0 ] || { echo "fuzz: SECONDS must be positive" >&2; exit 2; }

# The CI machine has 2 cores: two fuzzing workers per target.
par=${FUZZ_PARALLEL:-2}
cache="$(go env GOCACHE)/fuzz"
module=$(go list -m)

# list_corpus prints the names of the files in a corpus directory, sorted.
list_corpus() { find "$1" -maxdepth 1 -type f -printf '%f\n' 2>/dev/null | sort; }

passed=0
failed=0
found=0
failures=()
findings=()
start=$(date +%s)
for pkg in $(go list ./...); do
  targets=$(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true)
  [ -n "$targets" ] || continue
  dir=".${pkg#"$module"}"
  for t in $targets; do
    corpus="$dir/testdata/fuzz/$t"
    before=$(mktemp)
    list_corpus "$corpus" >"$before"
    log=$(mktemp)
    printf -- '--- %s %s (%ss)\n' "$dir" "$t" "$secs"
    ok=0
    go test -run '^$' -fuzz "^$t\$" -fuzztime "${secs}s" -parallel "$par" "$dir" >"$log" 2>&1 && ok=1
    # Go's fuzzing coordinator can end a run on a loaded machine with
    # "context deadline exceeded" and no failing input: run that target once
    # more rather than fail CI on the machine's load.
    if [ "$ok" = 0 ] && grep -q 'context deadline exceeded' "$log" && [ -z "$(list_corpus "$corpus" | comm -13 "$before" -)" ]; then
      echo "fuzz: $t: context deadline exceeded without an input; once more"
      go test -run '^$' -fuzz "^$t\$" -fuzztime "${secs}s" -parallel "$par" "$dir" >"$log" 2>&1 && ok=1
    fi
    if [ "$ok" = 1 ]; then
      passed=$((passed + 1))
      tail -n 1 "$log"
    else
      cat "$log"
      # go names the failing input in its output ("Failing input written
      # to testdata/fuzz/<Target>/<hash>"); show every new file too, in
      # case the message changes.
      new=$(list_corpus "$corpus" | comm -13 "$before" -)
      for f in $new; do
        echo "fuzz: failing input $corpus/$f:"
        cat "$corpus/$f"
      done
      if [ "$report_new" = 1 ] && [ -n "$new" ]; then
        found=$((found + 1))
        findings+=("$dir $t")
        echo "::error title=fuzz finding::$dir $t found a new failing input (printed above): fix it and commit the input under $corpus"
      else
        failed=$((failed + 1))
        failures+=("$dir $t")
      fi
    fi
    rm -f "$log" "$before"
    if [ "$keep" = 1 ] && [ -d "$cache/$pkg/$t" ]; then
      mkdir -p "$corpus"
      n=0
      for f in "$cache/$pkg/$t"/*; do
        [ -f "$f" ] || continue
        b=$(basename "$f")
        [ -e "$corpus/$b" ] && continue
        cp "$f" "$corpus/$b"
        n=$((n + 1))
      done
      echo "fuzz: kept $n new corpus entries in $corpus"
    fi
  done
done
for f in "${failures[@]}"; do
  echo "fuzz: FAILED $f"
done
for f in "${findings[@]}"; do
  echo "fuzz: NEW FINDING (reported, not failing: --report-new) $f"
done
echo "fuzz: $passed passed, $failed failed, $found new findings ($(( $(date +%s) - start ))s)"
[ "$failed" -eq 0 ]
