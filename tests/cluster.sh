#!/bin/sh
# Generation as on a cluster, simulated on one machine: 8 ranks with a tiny unit bound and a
# small memory budget (every kings-only subslice above the bound, so split over ranks) give
# the same files as 1 rank with the defaults (their readers of finished tables dropping blocks
# all the time, every pair finished in parts by any ranks, every split unit solved by a group
# of 3 ranks beside the others' work), and verify passes; split units solved by every rank
# give them too; a rank killed in the middle of the run, in the middle of a split unit of
# every rank or of a group, or as it has written parts of a finishing, and the same command
# again give the same files (the parts written kept); a finished directory extended by one
# piece; `--materials` and `--per-side` runs; the peak disk use of the output directory while
# it runs; a wrong value or exit in a split unit of every rank and of a group; budgets too
# small refused.
# Usage: tests/cluster.sh path/to/damka-test. DK_GEN_SCALE=small (make test): up to 4 pieces; full
# (make test-full, and when unset): up to 5.
set -u
DAMKA=${1:?usage: tests/cluster.sh path/to/damka-test}
SCALE=${DK_GEN_SCALE:-full}

. "$(dirname "$0")/lib.sh"
needs_hooks tests/cluster.sh

# a material of PIECES pieces, and one it does not depend on
if [ "$SCALE" = small ]; then
    PIECES=4 MAT=1m2k-0m1k OTHER=2m1k-0m1k
else
    PIECES=5 MAT=1m2k-1m1k OTHER=2m1k-1m1k
fi
# Units of at most 65536 positions: layers cut into many units, and every kings-only subslice
# of 4 and 5 pieces above the bound, split over the ranks (--split-positions). 192 MiB a rank
# holds the largest pair's finishing.
SMALL="--unit-positions 65536 --split-positions 65536 --memory-per-rank 192M"
# A finishing bound below every pair: each pair finished in parts (of 65536 positions, whole
# blocks), scanned and packed by any ranks, then joined.
FINISH="--finish-positions 1"

REF=$TMP/ref
timed "brazilian up to $PIECES pieces, 1 rank, defaults" gen --pieces "$PIECES" --out "$REF" --quiet
REF4=$REF
if [ "$PIECES" -ne 4 ]; then
    REF4=$TMP/ref4
    timed "brazilian up to 4 pieces, 1 rank, defaults" gen --pieces 4 --out "$REF4" --quiet
fi

# The size of a directory in KiB, and the largest it reached while job $JOB ran.
size_kib() { du -sk "$1" 2>/dev/null | cut -f1; }
watch_size() {
    peak=0
    while alive "$JOB"; do
        s=$(size_kib "$1")
        [ "${s:-0}" -gt "$peak" ] && peak=$s
        sleep 0.2
    done
    echo "$peak"
}

echo "-- a. 8 ranks, tiny units and memory, split units on groups of 3"
C=$TMP/np8
t0=$(now)
# DAMKA_TEST_TABLE_BYTES=1: both readers of finished tables (the solver's and the check's) drop
# a block as soon as they read another; DAMKA_TEST_GROUP_RANKS=3: every split unit is solved
# by a group of 3 ranks (never rank 0), not as many as its share needs; DAMKA_TEST_OPEN_UNITS=2:
# a finishing keeps 2 of its pair's unit files open, closing one for nearly every subslice of
# the twin
DAMKA_TEST_TABLE_BYTES=1 DAMKA_TEST_PROGRESS_SECONDS=0.02 DAMKA_TEST_GROUP_RANKS=3 DAMKA_TEST_OPEN_UNITS=2 \
    mpigen 8 --pieces "$PIECES" --out "$C" $SMALL $FINISH 2>"$TMP/np8.err" &
JOB=$!
peak=$(watch_size "$C")
wait "$JOB" || fail "8 ranks: $(tail -n 3 "$TMP/np8.err")"
JOB=""
echo "   8 ranks, $SMALL $FINISH: $(since "$t0") s"
same_dir "$REF" "$C" "8 ranks with tiny units against 1 rank"
final=$(size_kib "$C")
echo "   peak size of the directory while it ran: $peak KiB, finished tables: $final KiB"
# finished in parts, a pair's unit files, its parts' values (.raw.part*) and coded blocks stay
# until its join has written its tables: up to twice the tables (1.64 seen), where one task
# finishing a pair stays within 1.5
[ "$peak" -le $((final * 2)) ] || fail "the directory reached $peak KiB during the run, the tables are $final KiB"
# rank 0 dropped decoded blocks all the time, and decoded them again when needed
grep "^gen: rank 0 decoded" "$TMP/np8.err" | sed 's/^/   /'
dropped=$(sed -n 's/^gen: rank 0 decoded.*(\([0-9]*\) dropped.*/\1/p' "$TMP/np8.err")
[ "${dropped:-0}" -gt 100 ] || fail "8 ranks with DAMKA_TEST_TABLE_BYTES=1: rank 0 dropped ${dropped:-no} blocks"
# the progress line says which split units groups solve
grep -Eq "; (split unit of [0-9mk-]* \(level [0-9]*, .* positions\) on a group of 3 ranks|[0-9]+ split units on groups of [0-9]+ ranks in all)$" \
    "$TMP/np8.err" || fail "no progress line names a group's split unit: $(grep -m 3 'split unit' "$TMP/np8.err")"
# how long the 8 ranks waited for work (a share of the run between 0 and 100%)
waited=$(sed -n 's/^gen: the ranks waited for a task \([0-9.]*\)% of the run (.*/\1/p' "$TMP/np8.err")
echo "   the ranks waited for a task ${waited:-?}% of the run"
awk -v w="${waited:-x}" 'BEGIN { exit !(w ~ /^[0-9.]+$/ && w >= 0 && w <= 100) }' ||
    fail "8 ranks: no share of the run spent waiting: $(grep -c . "$TMP/np8.err") lines on stderr"
# every unit above the bound (one subslice each: kings only, say) was split, each solved by a
# group of 3
above=$("$DAMKA" info --pieces "$PIECES" --unit-positions 65536 | sed -n 's/^units above the bound.*: \([0-9]*\);.*/\1/p')
split=$(sed -n 's/^gen: \([0-9]*\) units above the bound.* were split.*/\1/p' "$TMP/np8.err")
echo "   units above the bound: ${above:-?}, split over ranks: ${split:-none}"
[ -n "$above" ] && [ "$above" -gt 0 ] && [ "${split:-0}" -eq "$above" ] ||
    fail "8 ranks: ${split:-no} units split, ${above:-?} above the bound"
grep -q "^gen: $split units above the bound .* were split: 0 solved by all 8 ranks together, $split by groups of 3 to 3 ranks beside the others' work$" \
    "$TMP/np8.err" || fail "8 ranks, groups of 3: $(grep 'were split' "$TMP/np8.err")"
# every pair was finished in parts
pairs=$("$DAMKA" info --pieces "$PIECES" | sed -n 's/^work units: .*(\([0-9]*\) material pairs.*/\1/p')
joined=$(sed -n 's/^gen: \([0-9]*\) pairs above the finishing bound .* finished in parts.*/\1/p' "$TMP/np8.err")
echo "   material pairs: ${pairs:-?}, finished in parts: ${joined:-none}"
[ -n "$pairs" ] && [ "${joined:-0}" -eq "$pairs" ] || fail "8 ranks, $FINISH: ${joined:-no} pairs finished in parts of ${pairs:-?}"
# the ranks' time by kind of task: every kind this run has, and with the waiting no more than
# the run's rank-seconds (a group's ranks that reported wait for their peers, counted in neither)
busy=$(grep '^gen: rank-seconds by task: ' "$TMP/np8.err")
echo "   $busy"
for kind in units "split units" scans packings joins; do
    echo "$busy" | grep -Eq "[:,] $kind [0-9]+\.[0-9]" || fail "8 ranks: no rank-seconds of $kind: '$busy'"
done
echo "$busy" | grep -q finishings && fail "8 ranks, every pair in parts: rank-seconds of whole finishings: '$busy'"
sed -n 's/^gen: the ranks waited for a task .*(\([0-9]*\) of \([0-9]*\) rank-seconds).*/\1 \2/p' "$TMP/np8.err" |
    awk -v line="$busy" '{ n = split(line, f, /[:,] [a-z ]+ /); for (k = 2; k <= n; k++) b += f[k]
        exit !(b + $1 <= $2 * 1.02 + 2 && b >= $2 / 4) }' ||
    fail "8 ranks: the tasks' rank-seconds do not fit the run's: '$busy', $(grep 'waited for a task' "$TMP/np8.err")"
"$DAMKA" verify --quiet "$C" 2>"$TMP/err" || fail "verify after 8 ranks: $(cat "$TMP/err")"

echo "-- a2. 8 ranks, every split unit solved by all of them"
A2=$TMP/every
# the progress line keeps moving during a split unit of every rank: its stages, the distance
# and the round (classifying is short here, shorter than a line's interval: not required)
DAMKA_TEST_PROGRESS_SECONDS=0.02 DAMKA_TEST_GROUP_RANKS=8 mpigen 8 --pieces 4 --out "$A2" $SMALL 2>"$TMP/every.err" ||
    fail "8 ranks, splits of every rank: $(tail -n 3 "$TMP/every.err")"
same_dir "$REF4" "$A2" "8 ranks, split units of every rank, against 1 rank"
for stage in "solving, distance [0-9]*, round [0-9]*" "verifying, "; do
    grep -q "; split unit of [0-9mk-]* (level [0-9]*, .* positions on 8 ranks): $stage" "$TMP/every.err" ||
        fail "no progress line during a split unit says '$stage': $(grep -m 3 'split unit' "$TMP/every.err")"
done
[ "$(grep -o '; split unit of .*' "$TMP/every.err" | sort -u | wc -l)" -ge 5 ] ||
    fail "the progress line of split units does not move: $(grep -c 'split unit of' "$TMP/every.err") lines"
grep -q "^gen: [0-9]* units above the bound .* were split: [1-9][0-9]* solved by all 8 ranks together$" "$TMP/every.err" ||
    fail "8 ranks, splits of every rank: $(grep 'were split' "$TMP/every.err")"

echo "-- b. a rank killed in the middle, then the same command (up to 4 pieces: quicker)"
# kill_then_resume WHEN ERRFILE OUT PID CONDITION...: once CONDITION holds for the run $JOB (8
# ranks, up to 4 pieces), the process whose id the command PID prints is killed with SIGKILL;
# the run must stop within 30 s with a failure. Then the same command again (without the test
# hooks, split units on groups as their shares need) must finish with the files of $REF4.
kill_then_resume() {
    when=$1 errfile=$2 out=$3 pidof=$4; shift 4
    if wait_for 300 "$@"; then
        pid=$(eval "$pidof")
        [ -n "$pid" ] && kill -KILL "$pid"
        n=0
        while alive "$JOB" && [ "$n" -lt 1500 ]; do sleep 0.02; n=$((n + 1)); done
        alive "$JOB" && { fail "mpirun still runs 30 s after a rank was killed $when"; kill_tree "$JOB"; }
        wait "$JOB" && fail "exit status 0 after a rank was killed $when"
    else
        fail "no rank was killed $when: $(tail -n 2 "$errfile")"
        kill_tree "$JOB"
    fi
    JOB=""
    mpigen 8 --pieces 4 --out "$out" $SMALL 2>"$TMP/err" || fail "restart after a kill $when: $(tail -n 2 "$TMP/err")"
    grep -q resuming "$TMP/err" || fail "the restart after a kill $when does not say it is resuming"
    same_dir "$REF4" "$out" "rank 3 killed $when and restarted"
    "$DAMKA" verify --quiet "$out" 2>"$TMP/err" || fail "verify after a kill $when: $(cat "$TMP/err")"
}

K=$TMP/kill
t0=$(now)
mpigen 8 --pieces 4 --out "$K" $SMALL 2>"$TMP/kill.err" &
JOB=$!
kill_then_resume "in the middle" "$TMP/kill.err" "$K" 'rank_pid "$JOB" 3' has_tables "$K" 20
echo "   killed and restarted: $(since "$t0") s"

# kill_in_split NAME GROUP PID WHEN: 8 ranks, every split unit solved by GROUP ranks, each rank
# of a split waiting 2 s as it starts (the hook, which writes its process id into a mark):
# the process whose id PID prints dies inside it, then the same command (kill_then_resume).
kill_in_split() {
    S=$TMP/$1 MARK=$TMP/$1.started
    t0=$(now)
    $MPIRUN -np 8 -x DAMKA_TEST_SPLIT_PAUSE="$MARK" -x DAMKA_TEST_GROUP_RANKS="$2" "$DAMKA" gen --pieces 4 --out "$S" \
        $SMALL --quiet 2>"$TMP/$1.err" &
    JOB=$!
    kill_then_resume "$4" "$TMP/$1.err" "$S" "$3" test -s "$MARK"
    echo "   killed $4 and restarted: $(since "$t0") s"
}
echo "-- c. a rank killed in the middle of a split unit of every rank, then the same command"
kill_in_split split-kill 8 'rank_pid "$JOB" 3' "in a split unit of every rank"
echo "-- c1. a rank killed in the middle of a group's split unit (ranks outside it working on), then the same command"
kill_in_split group-kill 3 'cat "$MARK"' "in a group's split unit"

echo "-- c2. a rank killed as it has written parts of a finishing, then the same command"
F=$TMP/part-kill
t0=$(now)
# the first rank to have written 3 parts (scans or packings) kills itself; the work directory
# is kept, so that the parts written before can be seen to stay
$MPIRUN -np 8 -x DAMKA_TEST_KILL_AFTER_PARTS=3 "$DAMKA" gen --pieces 4 --out "$F" $SMALL $FINISH --keep-work --quiet \
    >"$TMP/out" 2>"$TMP/err" && fail "a rank killed after 3 parts: exit status 0"
ls -i "$F/work" 2>/dev/null | grep '\.part' | sort -k2 >"$TMP/parts.before"
[ -s "$TMP/parts.before" ] || fail "no part of a finishing written before the kill"
# one part's file of a material not joined yet damaged in its middle (a packed table's if one
# was written, else a scan's): the restart must find it by its CRC and make it again, never join it
bad=
for kind in dtw scan; do
    for f in $(awk '{print $2}' "$TMP/parts.before" | grep "\\.$kind\\.part"); do
        [ -e "$F/${f%%.$kind.part*}.dtw" ] || { bad=$f; break 2; }
    done
done
[ -n "$bad" ] || fail "no part of a material not joined yet before the kill"
python3 -c 'import sys; p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[len(b) // 2] ^= 0x10; open(p, "wb").write(b)' "$F/work/$bad"
# the damaged part is made again, and its material's parts that follow from it may be; the
# other materials' parts stay
mat=${bad%%.part*}
mat=${mat%.*}
grep -v " $mat\." "$TMP/parts.before" >"$TMP/parts.kept"
mpigen 8 --pieces 4 --out "$F" $SMALL $FINISH --keep-work 2>"$TMP/err" ||
    fail "restart after a kill after parts: $(tail -n 2 "$TMP/err")"
grep -q resuming "$TMP/err" || fail "the restart after a kill after parts does not say it is resuming"
diff -r -x work "$REF4" "$F" >"$TMP/diff" 2>&1 ||
    fail "killed after parts and restarted: directories differ: $(head -n 5 "$TMP/diff" | tr '\n' ' ')"
# a part is written atomically (a new file renamed): one made again would have a new inode
ls -i "$F/work" | grep '\.part' | sort -k2 >"$TMP/parts.after"
again=$(join -1 2 -2 2 "$TMP/parts.kept" "$TMP/parts.after" | awk '$2 != $3' | wc -l)
[ "$again" -eq 0 ] || fail "$again part files written before the kill were made again"
join -1 2 -2 2 "$TMP/parts.before" "$TMP/parts.after" | awk -v f="$bad" '$1 == f && $2 != $3 { found = 1 } END { exit !found }' ||
    fail "the damaged part $bad was not made again"
echo "   $(wc -l <"$TMP/parts.before") part files before the kill, all of other materials kept, $bad (damaged) made again; killed and restarted: $(since "$t0") s"

echo "-- d. a finished directory extended by one piece"
E=$TMP/extend
timed "up to 3 pieces, 8 ranks" mpigen 8 --pieces 3 --out "$E" --quiet $SMALL
timed "then up to 4 pieces, 8 ranks" mpigen 8 --pieces 4 --out "$E" $SMALL
same_dir "$REF4" "$E" "3 pieces extended to 4"

echo "-- e. --materials and --per-side"
M=$TMP/materials
timed "--materials $MAT, 8 ranks" mpigen 8 --materials "$MAT" --out "$M" --quiet $SMALL
n=0
for f in "$M"/*.dtw "$M"/*.wld "$M"/*.dtc; do
    cmp -s "$f" "$REF/${f##*/}" || fail "--materials: ${f##*/} differs from the full run"
    n=$((n + 1))
done
[ -e "$M/brazilian-$MAT.dtw" ] || fail "--materials $MAT: no table of it"
[ -e "$M/brazilian-$OTHER.dtw" ] && fail "--materials $MAT: a table it does not need"
echo "   --materials: $n files, each equal to the full run's"
P=$TMP/per-side
timed "--pieces $PIECES --per-side 2, 8 ranks" mpigen 8 --pieces "$PIECES" --per-side 2 --out "$P" --quiet $SMALL
[ -e "$P/brazilian-0m3k-0m1k.dtw" ] && fail "--per-side 2: a table with 3 pieces a side"
for f in "$P"/*.dtw "$P"/*.dtc; do
    cmp -s "$f" "$REF/${f##*/}" || fail "--per-side: ${f##*/} differs from the full run"
done

# corrupt_split N: a wrong value (three kinds) and an exit read wrong by the solver (one to a
# position that must capture, one to a position that need not: the check reads them along two
# paths), each on rank N - 1 alone, in split units of groups of 3 ranks (on 3 ranks every rank,
# on 4 ranks 1, 2 and 3): the run stops with that rank's message.
corrupt_split() {
    n=$1 last=$(($1 - 1))
    for hook in DAMKA_TEST_CORRUPT_UNIT DAMKA_TEST_CORRUPT_RULE DAMKA_TEST_CORRUPT_CAPTURE \
        DAMKA_TEST_CORRUPT_EXIT:stored DAMKA_TEST_CORRUPT_EXIT:capture; do
        kind=${hook#*:} hook=${hook%:*}
        out=$TMP/corrupt-$n-$hook-$kind
        DAMKA_TEST_GROUP_RANKS=3 $MPIRUN -np "$last" "$DAMKA" gen --pieces 3 --out "$out" --quiet --unit-positions 2000 \
            --split-positions 2000 : -np 1 -x "$hook=split" -x "DAMKA_TEST_CORRUPT_EXIT_KIND=$kind" "$DAMKA" gen \
            --pieces 3 --out "$out" --quiet --unit-positions 2000 --split-positions 2000 >"$TMP/out" 2>"$TMP/err" &&
            fail "$hook=split ($kind) on $n ranks: exit status 0"
        exit_to=""
        [ "$hook" = DAMKA_TEST_CORRUPT_EXIT ] && exit_to=".* exit to "
        grep -q "^damka: gen: rank $last: .*verification failed: material 0m.k-0m.k, position W:$exit_to" "$TMP/err" ||
            fail "$hook=split ($kind) on $n ranks: not rank $last's message: $(grep damka: "$TMP/err")"
        grep "^damka: " "$TMP/err" | sed 's/^/   /'
    done
}
echo "-- f. a wrong value or exit in a split unit, on rank 2 of 3 (every rank), stops the run with rank 2's message"
corrupt_split 3
echo "-- f1. the same on rank 3 of 4, in a group of ranks 1 to 3"
corrupt_split 4

echo "-- g. budgets that cannot work"
for bad in "--memory-per-rank 10M" "--memory-per-rank 12Q" "--memory-per-rank 200M --unit-positions 100000000"; do
    # shellcheck disable=SC2086
    gen --pieces 3 --out "$TMP/bad" $bad >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" -ne 0 ] || fail "gen $bad: exit status 0"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^damka: " "$TMP/err" ||
        fail "gen $bad: not one line on stderr: $(head -c 300 "$TMP/err")"
done
# a split unit whose share does not fit one rank: refused at once, saying how many ranks would do
# (140 MiB is below the floor: with the floor's memory a rank)
gen --pieces 5 --out "$TMP/bad" --memory-per-rank 140M --unit-positions 65536 --split-positions 65536 \
    >"$TMP/out" 2>"$TMP/err" && fail "a split unit too large for one rank: exit status 0"
grep -q "^damka: gen: --memory-per-rank: a rank needs at least [0-9]* MiB (a rank's share of the largest split unit, .* run on at least [0-9]* ranks with [0-9]* MiB a rank), got 140 MiB" \
    "$TMP/err" || fail "a split unit too large for one rank: $(cat "$TMP/err")"
sed 's/^/   /' "$TMP/err"

[ "$fails" -eq 0 ] || { echo "cluster.sh: $fails failure(s)"; exit 1; }
echo "cluster.sh: all passed"
