# Shared by scripts/forge/github.sh and the tests (issue 20): bounded
# Markdown out of `check --format json`. Sourced, not run.
#
# The limits are the forge's, in bytes: GitHub refuses a job summary step
# over 1 MiB ("Job summaries ... up to 1MiB per step") and a comment over
# 65,536 characters. A section that does not fit is cut at a whole line and
# says how much it left out: never a silent truncation.

# md_escape: one table cell from stdin-free text: pipes, HTML, backticks and
# @mentions neutralised, newlines folded (jq does the work on the JSON side).
# The jq program below is where the escaping happens; this comment is its
# contract: cells may contain no raw '|', '<', '>', '`', '@' or newline.
findings_rows_jq='
  def cell: tostring
    | gsub("&"; "&amp;") | gsub("<"; "&lt;") | gsub(">"; "&gt;")
    | gsub("\\|"; "\\|") | gsub("`"; "&#96;") | gsub("@"; "&#64;")
    | gsub("[\r\n]+"; " ");
  .findings[]
  | "| \(.severity) | \(.path | cell) | \(if .line > 0 then .line else "" end) | \(.rule | cell) | \(.message | cell) |"
'

# bounded_rows BUDGET FILE: prints the lines of FILE while their bytes (with
# newlines) fit in BUDGET, then "<!-- cut N -->" when some did not; prints
# nothing else. Byte counts: LC_ALL=C makes awk's length() count bytes.
bounded_rows() {
  LC_ALL=C awk -v budget="$1" '
    { n = length($0) + 1
      if (cut == 0 && used + n <= budget) { print; used += n } else { cut++ } }
    END { if (cut > 0) printf "<!-- cut %d -->\n", cut }' "$2"
}

# findings_section JSON BUDGET: the findings as a Markdown table within
# BUDGET bytes, with an honest "N more" line when it had to stop.
findings_section() {
  local json=$1 budget=$2 rows total
  rows=$(mktemp)
  jq -r "$findings_rows_jq" "$json" >"$rows"
  total=$(wc -l <"$rows" | tr -d ' ')
  if [ "$total" -eq 0 ]; then
    rm -f "$rows"
    return 0
  fi
  local head='| severity | file | line | rule | message |
|---|---|---|---|---|'
  # Room for the header and the "N more" line.
  local room=$((budget - ${#head} - 200))
  [ "$room" -gt 0 ] || room=0
  printf '%s\n' "$head"
  local shown
  bounded_rows "$room" "$rows" >"$rows.cut"
  shown=$(grep -vc '^<!-- cut ' "$rows.cut" || true)
  grep -v '^<!-- cut ' "$rows.cut" || true
  if [ "$shown" -lt "$total" ]; then
    printf '\n**%d more findings not shown** (%d of %d fit in the size limit); every finding is an annotation in the job log, and `git echoes check --rev %s` lists them all.\n' \
      "$((total - shown))" "$shown" "$total" "${GE_REV_SHORT:-REV}"
  fi
  rm -f "$rows" "$rows.cut"
}

# bounded_file FILE BUDGET LABEL: FILE's lines within BUDGET bytes; when it
# is longer, the lines that fit and "N more lines of LABEL not shown".
bounded_file() {
  local file=$1 budget=$2 label=$3 size
  size=$(wc -c <"$file" | tr -d ' ')
  if [ "$size" -le "$budget" ]; then
    cat "$file"
    return 0
  fi
  local cut
  bounded_rows "$((budget - 200))" "$file" >"$file.cut"
  cut=$(sed -n 's/^<!-- cut \([0-9]*\) -->$/\1/p' "$file.cut")
  grep -v '^<!-- cut [0-9]* -->$' "$file.cut" || true
  printf '\n**%s more lines of %s not shown** (size limit); the job log has it whole.\n' "${cut:-0}" "$label"
  rm -f "$file.cut"
}
