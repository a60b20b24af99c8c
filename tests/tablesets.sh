#!/bin/sh
# scripts/tableset-report on a finished set: its section is well formed (the heading, a table
# whose rows have the header's cells, a row per piece count and a total row) and its numbers are
# those of `damka stats` (positions, longest win and DTC with their FENs, cursed wins and
# blessed losses, per piece count and in total), of the files (WLD bits a position), of
# sha256sum (manifest.json), of GNU time's report, of the run's task times and of a samples file
# made here.
# Usage: tests/tablesets.sh path/to/damka TABLE_DIR TIME_REPORT TASK_TIMES
#   TABLE_DIR: Brazilian tables made by one `damka gen` on one rank; TIME_REPORT: what
#   `/usr/bin/time -v` said of that run; TASK_TIMES: the file DAMKA_TASK_TIMES named in it.
set -u
DAMKA=${1:?usage: tests/tablesets.sh path/to/damka TABLE_DIR TIME_REPORT TASK_TIMES}
T=${2:?usage: tests/tablesets.sh path/to/damka TABLE_DIR TIME_REPORT TASK_TIMES}
TIME_REPORT=${3:?usage: tests/tablesets.sh path/to/damka TABLE_DIR TIME_REPORT TASK_TIMES}
TASK_TIMES=${4:?usage: tests/tablesets.sh path/to/damka TABLE_DIR TIME_REPORT TASK_TIMES}
REPORT="$(dirname "$0")/../scripts/tableset-report"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: tableset-report: $*"; fails=$((fails + 1)); }

# Samples as the loop of docs/tablesets.md writes them: two runs (the set resumed), each with
# GNU time's process and one rank; DIR's size peaks in the first run.
cat >"$TMP/samples" <<'EOF'
10:00:00 101 VmHWM:	    1200 kB
10:00:00 102 VmHWM:	   30000 kB
10:00:00 du 500
10:00:20 101 VmHWM:	    1200 kB
10:00:20 102 VmHWM:	   61440 kB
10:00:20 du 2048
11:00:00 201 VmHWM:	    1300 kB
11:00:00 202 VmHWM:	   40960 kB
11:00:00 du 1024
EOF
if ! "$REPORT" "$T" --log "$TIME_REPORT" --samples "$TMP/samples" --task-times "$TASK_TIMES" >"$TMP/md" 2>"$TMP/err"; then
    echo "FAIL: scripts/tableset-report $T: $(cat "$TMP/err")"
    exit 1
fi
"$DAMKA" stats "$T" >"$TMP/stats" || fail "damka stats $T failed"

head -n 1 "$TMP/md" | grep -q '^## Brazilian up to [0-9] pieces, 1 rank, default budget ([0-9-]*)$' ||
    fail "heading: $(head -n 1 "$TMP/md")"

# The rows of the per-piece table: as many cells as its header, the piece counts in order.
awk -F'|' '/^\| pieces /, /^\| total /' "$TMP/md" >"$TMP/table"
awk -F'|' 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad || NR < 4 }' "$TMP/table" ||
    fail "the per-piece table is not well formed: $(cat "$TMP/table")"
# pieces, positions, WLD bits, longest win, its FEN, longest DTC, its FEN, cursed, blessed
awk -F' *\\| *' 'NR > 2 { gsub(/`/, ""); for (i = 2; i < NF; i++) if ($i ~ /^[0-9,]+$/) gsub(/,/, "", $i)
                           print $2, $4, $5, $8, $9, $10, $11, $12, $13 }' "$TMP/table" >"$TMP/got"

# The same from `damka stats`, per piece count: positions, the first of the longest wins and
# of the longest DTCs with their FENs, cursed wins, blessed losses; and the WLD files' bits a
# position computed from their sizes.
for f in "$T"/*.wld; do
    m=${f##*/brazilian-}
    echo "${m%.wld} $(wc -c <"$f")"
done >"$TMP/wld"
awk -v wldfile="$TMP/wld" '
function pieces(m,  n, i, d) { n = 0; d = m; gsub(/[^0-9]/, " ", d); split(d, a, " "); for (i in a) n += a[i]; return n }
BEGIN { while ((getline line < wldfile) > 0) { split(line, w, " "); wld[pieces(w[1])] += w[2]; wld["total"] += w[2] } }
/^under the draw rule/ { rule = 1; next }
$1 != "brazilian" { next }
!rule { for (k = 0; k < 2; k++) { p = k ? "total" : pieces($2)
            pos[p] += $3; if ($7 > win[p]) { win[p] = $7; wfen[p] = $8 } } }
rule { for (k = 0; k < 2; k++) { p = k ? "total" : pieces($2)
            cur[p] += $4; bls[p] += $6; if ($8 > dtc[p]) { dtc[p] = $8; dfen[p] = $9 } } }
END { for (p = 2; p in pos; p++) out(p); out("total") }
function out(p) { printf "%s %d %.3f %d %s %d %s %d %d\n", p, pos[p], 8 * wld[p] / pos[p], win[p], wfen[p],
                         dtc[p], dfen[p], cur[p], bls[p] }' "$TMP/stats" >"$TMP/want"
cmp -s "$TMP/got" "$TMP/want" || fail "per piece count: the report says
$(cat "$TMP/got")
damka stats and the files say
$(cat "$TMP/want")"

sum=$(sha256sum "$T/manifest.json" | cut -d' ' -f1)
grep -q "^| SHA-256 of manifest.json | \`$sum\` |$" "$TMP/md" || fail "manifest.json's SHA-256 $sum is not in the report"

rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.2f MiB", $2 / 1024 }' "$TIME_REPORT")
grep -q "^| peak memory a rank | $rss for the largest rank .*in launch order: 60.00 MiB |$" "$TMP/md" ||
    fail "peak memory: GNU time's $rss and the samples' 60.00 MiB not in: $(grep 'peak memory' "$TMP/md")"
grep -q '^| peak disk of DIR | 2.00 MiB (du, sampled) |$' "$TMP/md" ||
    fail "peak disk: 2.00 MiB not in: $(grep 'peak disk' "$TMP/md")"
wall=$(awk '/Elapsed \(wall clock\)/ { n = split($NF, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.1f", s }' "$TIME_REPORT")
grep -Eq "^\| wall time \| (.* \()?$wall s\)?, GNU time \|$" "$TMP/md" || fail "wall time: GNU time's $wall s not in: $(grep 'wall time' "$TMP/md")"

# the tasks' processor time: every line's ninth column summed (a run this short takes under a minute)
cpu=$(awk -F'\t' '{ s += $9 } END { printf "%.1f s in %d tasks", s, NR }' "$TASK_TIMES")
grep -q "^| processor time of the tasks | $cpu of every run " "$TMP/md" ||
    fail "tasks: $cpu not in: $(grep 'processor time' "$TMP/md")"
# scripts/task-costs on the same file: a line for each piece count, their seconds adding up to
# the tasks' (each printed to 0.1 s)
COSTS="$(dirname "$0")/../scripts/task-costs"
if "$COSTS" "$TASK_TIMES" >"$TMP/costs" 2>"$TMP/err"; then
    got=$(awk '/^  [0-9] pieces: / { s += $3; n++ } END { printf "%d %.1f", n, s }' "$TMP/costs")
    want=$(awk -F'\t' '{ s += $9 } END { printf "3 %.1f", s }' "$TASK_TIMES")
    awk -v g="$got" -v w="$want" 'BEGIN { split(g, a, " "); split(w, b, " "); d = a[2] - b[2]
        exit !(a[1] == b[1] && d < 0.2 && d > -0.2) }' ||
        fail "task-costs by pieces: '$got' (pieces, seconds), the file says '$want': $(cat "$TMP/costs")"
else
    fail "scripts/task-costs: $(cat "$TMP/err")"
fi
printf 'brazilian\tunit\t0m1k-0m1k\n' >"$TMP/short.tasks"
"$REPORT" "$T" --task-times "$TMP/short.tasks" >/dev/null 2>"$TMP/err" && fail "a task file with short lines taken"
grep -q "short.tasks:1: 3 columns" "$TMP/err" || fail "a task file with short lines: $(cat "$TMP/err")"

[ "$fails" -eq 0 ] && echo "   tableset-report: $(($(wc -l <"$TMP/table") - 3)) piece counts and the total agree with damka stats"
[ "$fails" -eq 0 ]
