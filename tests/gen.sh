#!/bin/sh
# Table generation end to end (issue 4): generation and verification of the variants, the
# longest wins of docs/rules.md ("Longest International wins"), identical files for 1, 2 and 4
# ranks and for small units, kill-and-restart, `verify` catching altered values, a second run
# doing nothing, bad input, and `query` output. Runs tests/test_three_kings on the Brazilian
# and Russian tables it makes, tests/test_russian_endings on both, and tests/test_intl_kings on
# International king endings it makes.
# Usage: tests/gen.sh path/to/damka-test (the test programs are found beside it, in tests/).
# DK_GEN_SCALE=small (make test) generates International up to 3 pieces; full (make test-full) 4,
# and four kings against one.
set -u
DAMKA=${1:?usage: tests/gen.sh path/to/damka-test}
BIN=$(dirname "$DAMKA")
TAMPER=$BIN/tests/tools/tamper
THREE_KINGS=$BIN/tests/test_three_kings
RUSSIAN_ENDINGS=$BIN/tests/test_russian_endings
INTL_KINGS=$BIN/tests/test_intl_kings
SCALE=${DK_GEN_SCALE:-full}

. "$(dirname "$0")/lib.sh"
needs_hooks tests/gen.sh

# ============================================================================================
echo "-- a. generation and verification"
BR=$TMP/br4
timed "brazilian up to 4 pieces, 1 rank" gen --pieces 4 --out "$BR" --quiet
[ "$(ntables "$BR")" -eq 41 ] || fail "brazilian up to 4 pieces: $(ntables "$BR") tables, expected 41"
[ -e "$BR/work" ] && fail "brazilian up to 4 pieces: work directory left behind"
[ -s "$BR/manifest.json" ] || fail "brazilian up to 4 pieces: no manifest.json"
for m in "$BR"/*.dtw; do
    [ -s "${m%.dtw}.stats" ] || fail "no statistics file beside $m"
done
"$DAMKA" verify --quiet "$BR" 2>"$TMP/err" || fail "verify brazilian up to 4 pieces: $(cat "$TMP/err")"

if [ "$SCALE" = small ]; then INTL_PIECES=3; else INTL_PIECES=4; fi
IN=$TMP/intl
timed "international up to $INTL_PIECES pieces, 2 ranks" \
    mpigen 2 --variant international --pieces "$INTL_PIECES" --out "$IN" --quiet
if [ "$INTL_PIECES" = 4 ]; then INTL_TABLES=41; else INTL_TABLES=16; fi
[ "$(ntables "$IN")" -eq "$INTL_TABLES" ] || fail "international: $(ntables "$IN") tables, expected $INTL_TABLES"
t0=$(now)
"$DAMKA" verify --quiet "$IN" 2>"$TMP/err" || fail "verify international: $(cat "$TMP/err")"
echo "   verify international up to $INTL_PIECES pieces: $(since "$t0") s"

# Russian: Brazilian's board and index, its own capture rules (docs/rules.md).
RU=$TMP/ru4
timed "russian up to 4 pieces, 1 rank" gen --variant russian --pieces 4 --out "$RU" --quiet
[ "$(ntables "$RU")" -eq 41 ] || fail "russian up to 4 pieces: $(ntables "$RU") tables, expected 41"
t0=$(now)
"$DAMKA" verify --quiet "$RU" 2>"$TMP/err" || fail "verify russian: $(cat "$TMP/err")"
echo "   verify russian up to 4 pieces: $(since "$t0") s"
# FEN, its value in Brazilian, in Russian. The man crowned in passing takes the last black
# piece as a king (b6 over c7 to d8, then over g5 to h4; for Black g3 over f2 to e1, then over
# c3); in Brazilian it ends the move a king on the last row, a lone king against a lone king
# that cannot take it at once: a draw.
# value_is VARIANT DIR FEN VALUE: the first line of the answer gives VALUE ("_" for blanks).
value_is() {
    got=$("$DAMKA" query --variant "$1" --tables "$2" "$3" 2>"$TMP/err" | head -n 1)
    case $got in
        *"  $(echo "$4" | tr _ ' ') ("*) ;;
        *) fail "query $1 $3: '$got', expected $4 $(cat "$TMP/err")" ;;
    esac
}
while read -r fen br ru; do
    value_is brazilian "$BR" "$fen" "$br"
    value_is russian "$RU" "$fen" "$ru"
done <<'EOF'
W:Wb6:Bc7,Kg5 draw win_in_1_ply
B:WKc3,f2:Bg3 draw win_in_1_ply
EOF
# the 15-move rule on Russian tables (docs/draw-rule.md): the capture converts, so the win
# stands at every counter below the limit, and at the limit the rule has drawn the game
got=$("$DAMKA" query --variant russian --tables "$RU" --counter 29 W:Wb6:Bc7,Kg5 2>&1 | head -n 1)
case $got in
    *"(counter 29): win, 1 ply to conversion") ;;
    *) fail "query russian --counter 29: '$got'" ;;
esac
got=$("$DAMKA" query --variant russian --tables "$RU" --counter 30 W:Wb6:Bc7,Kg5 2>&1 | head -n 1)
case $got in
    *"cursed win: a draw under the 15-move rule (counter 30)") ;;
    *) fail "query russian --counter 30: '$got'" ;;
esac
# without --variant, the directory's only variant
got=$("$DAMKA" query --tables "$RU" W:Wb6:Bc7,Kg5 2>"$TMP/err" | sed -n 2p)
case $got in
    "  b6xh4 "*) ;;
    *) fail "query of Russian tables without --variant: '$got' $(cat "$TMP/err")" ;;
esac
# With two pieces every capture takes the last piece, so the two rules agree on every value;
# with three they differ where a white man takes two, crowned in passing (1m0k-0m2k).
"$DAMKA" stats "$BR" | sed -n 's/^brazilian *//p' >"$TMP/stats.br"
"$DAMKA" stats "$RU" | sed -n 's/^russian *//p' >"$TMP/stats.ru"
for m in 0m1k-0m1k 0m1k-1m0k 1m0k-0m1k 1m0k-1m0k 1m0k-0m2k; do
    grep "^$m " "$TMP/stats.br" >"$TMP/m.br"
    grep "^$m " "$TMP/stats.ru" >"$TMP/m.ru"
    [ -s "$TMP/m.ru" ] || fail "stats russian: no $m"
    if cmp -s "$TMP/m.br" "$TMP/m.ru"; then same=yes; else same=no; fi
    case $m in 1m0k-0m2k) want=no ;; *) want=yes ;; esac
    [ "$same" = "$want" ] || fail "stats of $m: russian and brazilian the same: $same, expected $want"
done

# ============================================================================================
echo "-- b. International longest wins of docs/rules.md"
"$DAMKA" stats --json "$IN" >"$TMP/stats.json" 2>"$TMP/err" || fail "stats --json: $(cat "$TMP/err")"
# FEN, plies, material (white men, white kings, black men, black kings), pieces
while read -r fen plies mat pieces; do
    [ "$pieces" -le "$INTL_PIECES" ] || continue
    got=$("$DAMKA" query --variant international --tables "$IN" "$fen" 2>"$TMP/err" | head -n 1)
    case $got in
        *"  win in $plies plies (White to move) "*) ;;
        *) fail "query $fen: '$got', expected win $plies $(cat "$TMP/err")" ;;
    esac
    line=$(grep "\"material\": \"$mat\"" "$TMP/stats.json")
    case $line in
        *"\"longest_win\": {\"plies\": $plies, \"fen\": \"W:"*) ;;
        *) fail "stats: the longest win of $mat is not $plies plies: $line" ;;
    esac
done <<'EOF'
W:W33:B2 17 1m0k-1m0k 2
W:WK42:B22 7 0m1k-1m0k 2
W:W40,44:B3 23 2m0k-1m0k 3
W:W21:B3,4 33 1m0k-2m0k 3
W:W6,K49,50:BK16 29 2m1k-0m1k 4
W:WK40,K45,50:BK11 31 1m2k-0m1k 4
W:WK6,K22,K27:BK49 15 0m3k-0m1k 4
W:WK8,K20,K37:B43 17 0m3k-1m0k 4
W:W33,46:B4,5 39 2m0k-2m0k 4
W:W6:B2,3,4 43 1m0k-3m0k 4
W:WK1:B2,3,4 43 0m1k-3m0k 4
EOF
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert sum(len(v["tables"]) for v in d["variants"]) > 0' \
        "$TMP/stats.json" || fail "stats --json is not valid JSON"
fi

# ============================================================================================
echo "-- c. 1, 2 and 4 ranks give identical files"
timed "brazilian up to 4 pieces, 2 ranks" mpigen 2 --pieces 4 --out "$TMP/br4-np2" --quiet
same_dir "$BR" "$TMP/br4-np2" "1 and 2 ranks"
timed "brazilian up to 3 pieces, 1 rank" gen --pieces 3 --out "$TMP/br3" --quiet
timed "brazilian up to 3 pieces, 4 ranks" mpigen 4 --pieces 3 --out "$TMP/br3-np4" --quiet
same_dir "$TMP/br3" "$TMP/br3-np4" "1 and 4 ranks"
# Units of 1024 positions: a unit's man moves reach more units above than the solver keeps open,
# so it closes and reopens them (under AddressSanitizer this once found a unit file reading a
# plan the solver had moved), and consecutive units keep them open.
timed "brazilian up to 4 pieces, units of 1024 positions" gen --pieces 4 --unit-positions 1024 --out "$TMP/br4-u1k" --quiet
same_dir "$BR" "$TMP/br4-u1k" "units of 1024 positions and the default"

# ============================================================================================
echo "-- d. kill and restart"
# One rank, killed four times: during start-up, at the first finished unit, with a third and
# with two thirds of the tables finished; each restart must resume. A half-written temporary
# file of a killed writer is planted before the last restart: it must not survive.
K=$TMP/kill1
t0=$(now)
killed=0
written=false
for moment in startup unit third more; do
    gen --pieces 4 --out "$K" 2>"$TMP/kill.err" &
    JOB=$!
    # a run on a directory with finished work says so before anything else: kill it after that
    # (the moment below may already hold when it starts)
    if $written; then wait_for 120 grep -q resuming "$TMP/kill.err"; fi
    case $moment in
        startup) sleep 0.2 ;;
        unit) wait_for 120 has_units "$K" ;;
        third) wait_for 120 has_tables "$K" 14 ;;
        more) wait_for 120 has_tables "$K" $(($(ntables "$K") + 2)) ;;
    esac
    if alive "$JOB"; then
        kill_tree "$JOB"
        killed=$((killed + 1))
        if [ "$moment" != startup ] && [ "$(nunits "$K")" -eq 0 ] && [ "$(ntables "$K")" -eq 0 ]; then
            fail "kill at $moment: nothing was written before the kill"
        fi
    else
        wait "$JOB"
        JOB=""
    fi
    if $written && ! grep -q resuming "$TMP/kill.err"; then
        fail "the run after a kill ($moment) does not say it is resuming: $(head -c 200 "$TMP/kill.err")"
    fi
    [ "$(($(nunits "$K") + $(ntables "$K")))" -gt 0 ] && written=true
done
[ "$killed" -ge 3 ] || fail "kill and restart: only $killed of 4 runs were still running when killed"
mkdir -p "$K/work"
echo half >"$K/work/brazilian-0m3k-0m1k.L0.0-4960.tmp.999999"
echo half >"$K/brazilian-0m3k-0m1k.dtw.tmp.999999"
gen --pieces 4 --out "$K" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] || fail "restart after kills: exit status $rc: $(tail -n 2 "$TMP/err")"
grep -q 'resuming\|nothing to do' "$TMP/err" || fail "the last restart does not say it is resuming"
same_dir "$BR" "$K" "1 rank killed 4 times, restarted"
echo "   1 rank, killed $killed times and restarted: $(since "$t0") s"

# --keep-work: the units and tables finished before a kill are neither redone nor rewritten;
# a damaged unit file is not trusted, but solved again. A material is finished when its
# statistics are written (last): the files of one the kill caught half-way are written again.
K=$TMP/kill-keep
unfinished_unit() {
    for u in "$K"/work/brazilian-*.L*; do
        [ -f "$u" ] || continue
        case $u in *.tmp.*) continue ;; esac
        mat=${u##*/brazilian-}
        mat=${mat%%.L*}
        [ -e "$K/brazilian-$mat.dtw" ] || { echo "$u"; return 0; }
    done
    return 1
}
half_with_unit() { has_tables "$K" 20 && unfinished_unit >/dev/null; }
# The unit seen unfinished may be finished between the look and the kill: run again then.
damaged=""
for attempt in 1 2 3 4 5; do
    rm -rf "$K"
    gen --pieces 4 --out "$K" --quiet --keep-work 2>"$TMP/kill.err" &
    JOB=$!
    wait_for 120 half_with_unit || break
    kill_tree "$JOB"
    damaged=$(unfinished_unit) && break
done
if [ -n "$damaged" ]; then
    find "$K" -type f ! -name '*.tmp.*' | sort | while read -r f; do
        case $f in
        *.wld | *.dtw | *.dtc | *.raw) mat=${f##*/}; [ -e "$K/${mat%.*}.stats" ] && echo "$f" ;;
        *) echo "$f" ;;
        esac
    done >"$TMP/before"
    # flip a value byte of that unit: its header checksum no longer matches
    off=$(($(wc -c <"$damaged") - 1))
    byte=$(od -An -tu1 -j "$off" -N1 "$damaged" | tr -d ' ')
    printf "\\$(printf %o $((byte ^ 1)))" | dd of="$damaged" bs=1 seek="$off" conv=notrunc 2>/dev/null
    sleep 0.02
    touch "$TMP/marker"
    gen --pieces 4 --out "$K" --keep-work 2>"$TMP/err" || fail "restart with --keep-work: $(tail -n 2 "$TMP/err")"
    grep -q resuming "$TMP/err" || fail "restart with --keep-work does not say it is resuming"
    # (DIR/lock says which run holds the directory: every run writes it)
    redone=$(grep -v -x -F -e "$damaged" -e "$K/lock" "$TMP/before" | while read -r f; do
        newer "$f" "$TMP/marker" && echo "$f"; done)
    [ -z "$redone" ] || fail "restart redid finished work: $(echo "$redone" | head -c 300)"
    newer "$damaged" "$TMP/marker" || fail "restart trusted a damaged unit file ($damaged)"
    for f in "$BR"/*; do
        cmp -s "$f" "$K/${f##*/}" || fail "killed and restarted with --keep-work: ${f##*/} differs"
    done
    echo "   $(wc -l <"$TMP/before") files were finished before the kill, none redone"
else
    wait "$JOB"
    JOB=""
    fail "--keep-work run: never saw 20 tables with an unfinished unit ($attempt runs)"
fi

# Two ranks: the whole job killed (mpirun and both ranks), then only rank 1, then only rank 0;
# mpirun must end the job by itself when one rank dies.
K=$TMP/kill-mpi
t0=$(now)
for victim in job 1 0; do
    mpigen 2 --pieces 4 --out "$K" 2>"$TMP/kill.err" &
    JOB=$!
    if [ "$victim" = job ]; then
        wait_for 120 has_tables "$K" 20
    else
        wait_for 120 has_tables "$K" $(($(ntables "$K") + 1))
    fi
    if ! alive "$JOB"; then
        wait "$JOB"
        JOB=""
        fail "2 ranks ($victim to be killed): the run ended before it could be killed"
        continue
    fi
    if [ "$victim" != job ] && ! grep -q resuming "$TMP/kill.err"; then
        fail "2 ranks: the run after a kill does not say it is resuming"
    fi
    if [ "$victim" = job ]; then
        kill_tree "$JOB"
        continue
    fi
    pid=$(rank_pid "$JOB" "$victim")
    if [ -z "$pid" ]; then
        fail "2 ranks: no process of rank $victim found"
        kill_tree "$JOB"
        continue
    fi
    ranks=$(descendants "$JOB")
    kill -KILL "$pid"
    n=0
    while alive "$JOB" && [ "$n" -lt 1500 ]; do sleep 0.02; n=$((n + 1)); done
    if alive "$JOB"; then
        fail "2 ranks: mpirun still runs 30 s after rank $victim was killed"
        kill_tree "$JOB"
        continue
    fi
    wait "$JOB"
    rc=$?
    JOB=""
    [ "$rc" -ne 0 ] || fail "2 ranks: exit status 0 after rank $victim was killed"
    # the other rank must not outlive the job; 30 s, as a loaded machine (or a sanitizer's exit
    # checks) can take several seconds to end a process Open MPI has signalled
    for p in $ranks; do
        n=0
        while alive "$p" && [ "$n" -lt 1500 ]; do sleep 0.02; n=$((n + 1)); done
        if alive "$p"; then
            fail "2 ranks: process $p ($({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null | head -c 80)) still runs 30 s after mpirun ended"
            kill -KILL "$p"
        fi
    done
done
mpigen 2 --pieces 4 --out "$K" 2>"$TMP/err" || fail "2 ranks, restart: $(tail -n 2 "$TMP/err")"
grep -q resuming "$TMP/err" || fail "2 ranks, the last restart does not say it is resuming"
same_dir "$BR" "$K" "2 ranks killed (the job, rank 1, rank 0) and restarted"
echo "   2 ranks, killed 3 times (the job, rank 1, rank 0) and restarted: $(since "$t0") s"

# ============================================================================================
echo "-- e. verify catches altered values"
# A flipped byte: the checksum of the file no longer matches.
cp -r "$BR" "$TMP/flip"
F=$TMP/flip/brazilian-0m3k-0m1k.dtw
off=$(($(wc -c <"$F") / 2))
byte=$(od -An -tu1 -j "$off" -N1 "$F" | tr -d ' ')
printf "\\$(printf %o $((byte ^ 2)))" | dd of="$F" bs=1 seek="$off" conv=notrunc 2>/dev/null
cmp -s "$F" "$BR/brazilian-0m3k-0m1k.dtw" && fail "could not alter $F"
"$DAMKA" verify --quiet "$TMP/flip" 2>"$TMP/err"
rc=$?
if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then
    fail "verify of a flipped byte: exit status $rc"
fi
grep -q '^damka: verify: .*0m3k-0m1k.*checksum' "$TMP/err" ||
    fail "verify of a flipped byte: no checksum failure naming 0m3k-0m1k: $(head -n 2 "$TMP/err")"
# A wrong value with consistent checksums: only the value-by-value check can see it.
if [ -x "$TAMPER" ]; then
    cp -r "$BR" "$TMP/wrong"
    fen=$("$TAMPER" "$TMP/wrong/brazilian-0m3k-0m1k.dtw" 5000) || fail "tamper failed"
    "$DAMKA" verify --quiet "$TMP/wrong" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then
        fail "verify of a wrong value: exit status $rc"
    fi
    # its checksums are right: gen would take it as finished, unless its statistics go first
    repair="remove $TMP/wrong/brazilian-0m3k-0m1k.stats, then run damka gen --variant brazilian --materials 0m3k-0m1k --draw-rule 15 --out $TMP/wrong to make it again"
    grep -qxF "damka: verify: brazilian 0m3k-0m1k: wrong value at $fen; $repair" "$TMP/err" ||
        fail "verify of a wrong value at $fen: $(cat "$TMP/err")"
    grep -q checksum "$TMP/err" && fail "verify of a wrong value blames the checksum: $(cat "$TMP/err")"
    rm "$TMP/wrong/brazilian-0m3k-0m1k.stats"
    gen --variant brazilian --materials 0m3k-0m1k --draw-rule 15 --out "$TMP/wrong" --quiet 2>"$TMP/err" ||
        fail "the repair verify names for a wrong value: $(cat "$TMP/err")"
    same_dir "$BR" "$TMP/wrong" "a wrong value, repaired as verify says"
else
    fail "$TAMPER is missing (make builds it)"
fi

# A flipped byte in the middle of a finished table: verify names the command that makes it
# again; gen on the directory, with that command or the one that made it, makes it again (the
# restart checks every finished file's CRC against its statistics), the same bytes.
B3=$TMP/br3
timed "brazilian up to 3 pieces" gen --pieces 3 --out "$B3" --quiet
cp -r "$B3" "$TMP/br3.ref"
flip_middle() {
    off=$(($(wc -c <"$1") / 2))
    byte=$(od -An -tu1 -j "$off" -N1 "$1" | tr -d ' ')
    printf "\\$(printf %o $((byte ^ 2)))" | dd of="$1" bs=1 seek="$off" conv=notrunc 2>/dev/null
    cmp -s "$1" "$TMP/br3.ref/${1##*/}" && fail "could not alter $1"
}
F=$B3/brazilian-1m0k-0m2k.dtw
flip_middle "$F"
"$DAMKA" verify --quiet "$B3" 2>"$TMP/err" && fail "verify of a flipped byte in $F passes"
repair="run damka gen --variant brazilian --materials 1m0k-0m2k --draw-rule 15 --out $B3 to make it again"
head -n 1 "$TMP/err" | grep -qF "brazilian-1m0k-0m2k.dtw is damaged: checksum mismatch; $repair" ||
    fail "verify of a flipped byte does not name the repair: $(head -n 1 "$TMP/err")"
gen --pieces 3 --out "$B3" 2>"$TMP/err" || fail "gen on a damaged table: $(cat "$TMP/err")"
grep -q "^gen: making brazilian 1m0k-0m2k again: .*brazilian-1m0k-0m2k.dtw is damaged: checksum mismatch" \
    "$TMP/err" || fail "gen on a damaged table does not say it makes it again: $(head -n 3 "$TMP/err")"
same_dir "$TMP/br3.ref" "$B3" "a flipped byte, gen run again"
flip_middle "$F"
gen --variant brazilian --materials 1m0k-0m2k --draw-rule 15 --out "$B3" --quiet 2>"$TMP/err" ||
    fail "the repair verify names: $(cat "$TMP/err")"
same_dir "$TMP/br3.ref" "$B3" "a flipped byte, repaired as verify says"
# A statistics file that does not parse: stats and verify name it in one line with a non-zero
# exit (they passed in silence, the table left out), and gen makes its table again.
S=$TMP/badstats
cp -r "$TMP/br3.ref" "$S"
echo garbage >"$S/brazilian-2m0k-1m0k.stats"
for cmd in stats verify; do
    "$DAMKA" "$cmd" "$S" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] &&
        grep -q "^damka: $cmd: $S/brazilian-2m0k-1m0k.stats is damaged: .*--out $S to make it again" "$TMP/err" ||
        fail "$cmd on a .stats file that does not parse: status $rc, $(cat "$TMP/err")"
done
gen --pieces 3 --out "$S" 2>"$TMP/err" || fail "gen on a .stats file that does not parse: $(cat "$TMP/err")"
grep -q "^gen: making brazilian 2m0k-1m0k again: .*brazilian-2m0k-1m0k.stats is damaged" "$TMP/err" ||
    fail "gen on a .stats file that does not parse does not say so: $(head -n 3 "$TMP/err")"
same_dir "$TMP/br3.ref" "$S" "a .stats file that does not parse, gen run again"

# The check gen runs on every unit: a value, or the flag saying that a position must capture
# (from which finishing takes the positions tables leave out), altered between solving and
# checking, or one exit the solver reads (a capture, a promotion or a man move) read wrong,
# stops the run with the material and a position named. The check reads exits along three
# paths (to a finished table's position that need not capture, to one that must, by a man move
# to the level above): one exit of each kind read wrong (in the first unit that has one).
for hook in DAMKA_TEST_CORRUPT_UNIT=30 DAMKA_TEST_CORRUPT_CAPTURE=30 DAMKA_TEST_CORRUPT_EXIT=30 \
    'DAMKA_TEST_CORRUPT_EXIT=*:stored' 'DAMKA_TEST_CORRUPT_EXIT=*:capture' 'DAMKA_TEST_CORRUPT_EXIT=*:above'; do
    kind=${hook#*:}
    [ "$kind" = "$hook" ] && kind=""
    hook=${hook%:*}
    rm -rf "$TMP/corrupt"
    env "$hook" DAMKA_TEST_CORRUPT_EXIT_KIND="$kind" "$DAMKA" gen --pieces 4 --out "$TMP/corrupt" --quiet 2>"$TMP/err"
    rc=$?
    if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then
        fail "gen with $hook $kind: exit status $rc"
    fi
    exit_to=""
    [ "${hook%%=*}" = DAMKA_TEST_CORRUPT_EXIT ] && exit_to=".* exit to "
    grep -Eq "^damka: gen: verification failed: material [0-9]m[0-9]k-[0-9]m[0-9]k, position [WB]:W.*:B.*$exit_to" "$TMP/err" ||
        fail "gen with $hook $kind: $(cat "$TMP/err")"
    grep "^damka: " "$TMP/err" | sed 's/^/   /'
done

# ============================================================================================
echo "-- f. a second run on a finished directory does nothing"
# (DIR/lock says which run holds the directory: every run writes it)
ls -l --full-time "$BR" | grep -v ' lock$' >"$TMP/ls.before"
sleep 0.02
touch "$TMP/marker"
gen --pieces 4 --out "$BR" 2>"$TMP/err" || fail "gen on a finished directory: $(cat "$TMP/err")"
grep -q "nothing to do" "$TMP/err" || fail "gen on a finished directory does not say 'nothing to do'"
changed=$(find "$BR" -newer "$TMP/marker" ! -path "$BR" ! -path "$BR/lock" | tr '\n' ' ')
[ -z "$changed" ] || fail "gen on a finished directory wrote $changed"
ls -l --full-time "$BR" | grep -v ' lock$' >"$TMP/ls.after"
cmp -s "$TMP/ls.before" "$TMP/ls.after" || fail "gen on a finished directory changed its listing"
gen --pieces 4 --out "$BR" --quiet 2>"$TMP/err" || fail "gen --quiet on a finished directory failed"
[ -s "$TMP/err" ] && fail "gen --quiet on a finished directory printed: $(cat "$TMP/err")"
# A finished --keep-work directory, run again without --keep-work: its work/ (the .raw tables
# kept for analysis) stays, and nothing else changes either.
KW=$TMP/keep
gen --pieces 3 --keep-work --out "$KW" --quiet 2>"$TMP/err" || fail "gen --keep-work: $(cat "$TMP/err")"
ls "$KW"/work/*.raw >/dev/null 2>&1 || fail "gen --keep-work kept no .raw table"
listing() { find "$1" -mindepth 1 ! -path "$1/lock" -printf '%P %s %T@\n' | sort; }
listing "$KW" >"$TMP/ls.before"
sleep 0.02
gen --pieces 3 --out "$KW" 2>"$TMP/err" || fail "gen on a finished --keep-work directory: $(cat "$TMP/err")"
grep -q "nothing to do" "$TMP/err" || fail "gen on a finished --keep-work directory: $(cat "$TMP/err")"
listing "$KW" >"$TMP/ls.after"
cmp -s "$TMP/ls.before" "$TMP/ls.after" ||
    fail "gen on a finished --keep-work directory changed it: $(diff "$TMP/ls.before" "$TMP/ls.after" | head -n 4 | tr '\n' ' ')"
# A run killed after its last table but before the manifest: the next run must write it.
cp "$BR/manifest.json" "$TMP/manifest.json"
rm "$BR/manifest.json"
gen --pieces 4 --out "$BR" --quiet 2>"$TMP/err" || fail "gen without a manifest: $(cat "$TMP/err")"
cmp -s "$BR/manifest.json" "$TMP/manifest.json" || fail "gen on finished tables without a manifest does not write it"

# ============================================================================================
echo "-- g. bad input"
# expect_bad [-m] args...: exit status 1..127 and, unless -m (several errors may apply),
# exactly one line on stderr starting with "damka: ".
expect_bad() {
    many=0
    [ "$1" = -m ] && { many=1; shift; }
    "$DAMKA" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    rc=$?
    lines=$(wc -l <"$TMP/err")
    if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then
        fail "damka $*: exit status $rc"
    elif ! head -n 1 "$TMP/err" | grep -q '^damka: '; then
        fail "damka $*: stderr does not start with 'damka: ': $(head -n 2 "$TMP/err")"
    elif [ "$many" = 0 ] && [ "$lines" -ne 1 ]; then
        fail "damka $*: $lines lines on stderr: $(head -n 3 "$TMP/err")"
    fi
}
expect_bad gen --pieces 3
expect_bad gen --pieces 3 --out ""
expect_bad gen --out "$TMP/x"
expect_bad gen --pieces 11 --out "$TMP/x"
expect_bad gen --pieces 1 --out "$TMP/x"
expect_bad gen --pieces x --out "$TMP/x"
expect_bad gen --pieces --out "$TMP/x"
expect_bad gen --materials 3m0k --out "$TMP/x"
expect_bad gen --materials 0m3k-0m0k --out "$TMP/x"
expect_bad gen --materials 13m0k-0m1k --out "$TMP/x"
expect_bad gen --materials 0m3k-0m1k,nonsense --out "$TMP/x"
expect_bad gen --materials "" --out "$TMP/x"
expect_bad gen --pieces 3 --materials 0m3k-0m1k --out "$TMP/x"
expect_bad gen --pieces 3 --out "$TMP/x" --frobnicate
expect_bad gen --variant frisian --pieces 3 --out "$TMP/x"
expect_bad gen --pieces 3 --out "$TMP/x" --unit-positions 0
expect_bad gen --pieces 2 --out "$BR/manifest.json/x" --quiet
[ -e "$TMP/x" ] && fail "a rejected gen command created its output directory"
mkdir "$TMP/empty"
expect_bad verify
expect_bad verify "$TMP/empty"
expect_bad verify "$TMP/missing"
expect_bad verify --frobnicate "$BR"
expect_bad verify "$BR" "$BR"
expect_bad stats
expect_bad stats "$TMP/empty"
expect_bad stats "$TMP/missing"
expect_bad stats --frobnicate "$BR"
expect_bad query --tables "$BR"
expect_bad query --tables "$BR" W:W21,22,23:B1,2
expect_bad query --tables "$TMP/missing" W:W21:B1
expect_bad query --variant international --tables "$BR" W:W33:B2
expect_bad query --tables "$BR" W:W30:B30
expect_bad query --tables "$BR" "W:W1:B30"
expect_bad query --tables "$BR" garbage
expect_bad query --tables "$BR" ""
expect_bad query --tables "$BR" W:W21:B
expect_bad query --tables "$BR" --frobnicate W:W21:B1
expect_bad query --tables "$BR" W:W21:B1 W:W22:B1
expect_bad query --tables "$BR" --batch "$TMP/missing"
# A damaged table: truncated, or its header altered.
cp -r "$BR" "$TMP/trunc"
F=$TMP/trunc/brazilian-0m2k-0m1k.dtw
head -c 1000 "$BR/brazilian-0m2k-0m1k.dtw" >"$F"
expect_bad query --tables "$TMP/trunc" W:WK1,K2:BK32
grep -q 'damaged' "$TMP/err" || fail "query on a truncated table: $(cat "$TMP/err")"
expect_bad query --tables "$TMP/trunc" --json W:WK1,K2:BK32
expect_bad query --tables "$TMP/trunc" B:WK1,K2:B28 # h2-g1 promotes into the truncated table
expect_bad -m verify "$TMP/trunc"
grep -q 'brazilian-0m2k-0m1k.dtw is damaged' "$TMP/err" || fail "verify of a truncated table: $(head -n 2 "$TMP/err")"
head -c 10 "$BR/brazilian-0m2k-0m1k.dtw" >"$F"
expect_bad query --tables "$TMP/trunc" W:WK1,K2:BK32
: >"$F"
expect_bad query --tables "$TMP/trunc" W:WK1,K2:BK32
cp "$BR/brazilian-0m2k-0m1k.dtw" "$F"
printf 'X' | dd of="$F" bs=1 seek=14 conv=notrunc 2>/dev/null
expect_bad query --tables "$TMP/trunc" W:WK1,K2:BK32
# Batch: good lines answered, bad lines one error object each, exit status 1.
cat >"$TMP/batch" <<'EOF'
W:W21:B1
bad fen

W:W21,22,23:B1,2
# a comment
B:WK29:BK4,K1
W:W30:B30
W:WK1,K2:B28
EOF
"$DAMKA" query --tables "$BR" --json --batch <"$TMP/batch" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] || fail "query --batch with bad lines: exit status $rc, expected 1"
[ "$(wc -l <"$TMP/out")" -eq 6 ] || fail "query --batch --json: $(wc -l <"$TMP/out") lines for 6 FENs"
[ "$(grep -c '"error": ' "$TMP/out")" -eq 3 ] || fail "query --batch --json: expected 3 error objects"
[ "$(grep -c '"moves": ' "$TMP/out")" -eq 3 ] || fail "query --batch --json: expected 3 answers"
sed -n 1p "$TMP/out" | grep -q '^{"fen": "W:W21:B1", "result": "win", "dtw": 5, ' ||
    fail "query --batch --json, line 1: $(sed -n 1p "$TMP/out")"
sed -n 2p "$TMP/out" | grep -q '^{"fen": "bad fen", "error": "' ||
    fail "query --batch --json, line 2: $(sed -n 2p "$TMP/out")"
sed -n 4p "$TMP/out" | grep -q '^{"fen": "B:WK29:BK1,K4", "result": "win", "dtw": 3, ' ||
    fail "query --batch --json, line 4: $(sed -n 4p "$TMP/out")"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$TMP/out" ||
        fail "query --batch --json: a line is not valid JSON"
fi
"$DAMKA" query --tables "$BR" --batch "$TMP/batch" >"$TMP/out" 2>"$TMP/err"
[ "$?" -eq 1 ] || fail "query --batch FILE with bad lines: exit status not 1"
[ "$(grep -c '	error	' "$TMP/out")" -eq 3 ] || fail "query --batch: expected 3 error lines"
grep -q '^W:W21:B1	win in 5 plies	15-move rule: win, ' "$TMP/out" || fail "query --batch: W:W21:B1 not answered"
printf 'W:W21:B1\nB:WK29:BK4,K1\n' | "$DAMKA" query --tables "$BR" --batch >"$TMP/out" 2>"$TMP/err" ||
    fail "query --batch of good lines: exit status $?"
printf 'W:WK1,K2:BK32\n' | "$DAMKA" query --tables "$TMP/trunc" --batch --json >"$TMP/out" 2>/dev/null
rc=$?
[ "$rc" -eq 1 ] && grep -q '"error": "damaged table' "$TMP/out" ||
    fail "query --batch --json on a damaged table: status $rc, $(cat "$TMP/out")"

# ============================================================================================
echo "-- h. query output"
# check_query VARIANT DIR FEN RESULT DTW: the JSON answer has every field; the best move carries
# the position's value under the draw rule, and some move its DTW value; moves are best first
# under the rule (by category: win, cursed win, draw, blessed loss, loss; then fastest win,
# draws, slowest loss by DTW).
check_query() {
    "$DAMKA" query --variant "$1" --tables "$2" --json "$3" >"$TMP/q" 2>"$TMP/err" ||
        { fail "query --json $3: $(cat "$TMP/err")"; return; }
    awk -v want_result="$4" -v want_dtw="$5" '
        function field(s, re,   t) {
            if (!match(s, re)) return "MISSING"
            t = substr(s, RSTART, RLENGTH); sub(/^"[a-z]+": /, "", t); gsub(/"/, "", t); return t
        }
        function rank(r, d) { return r == "win" ? 1000 - d : r == "draw" ? 0 : -1000 + d }
        function cat(c) { sub(/^category: /, "", c); return c == "win" ? 2 : c == "cursed-win" ? 1 : c == "draw" ? 0 : c == "blessed-loss" ? -1 : c == "loss" ? -2 : -9 }
        {
            n = split($0, part, /\{"notation": /)
            head = part[1]
            if (field(head, "^\\{\"fen\": \"[^\"]*\"") == "MISSING") print "no fen"
            r = field(head, "\"result\": \"[a-z]+\""); d = field(head, "\"dtw\": (null|[0-9]+)")
            rule = field(head, "\"rule\": \\{[^}]*\\}")
            if (rule == "MISSING") print "no rule object"
            if (r != want_result || d != want_dtw) print "value " r " " d ", expected " want_result " " want_dtw
            if (index(head, "\"moves\": [") == 0) print "no moves array"
            if (n < 2) print "no moves"
            prev = 1e18; carried = 0
            for (i = 2; i <= n; i++) {
                m = part[i]
                if (field(m, "^\"[^\"]+\"") == "MISSING") print "move " i - 1 ": no notation"
                if (field(m, "\"from\": [0-9]+") == "MISSING") print "move " i - 1 ": no from"
                if (field(m, "\"to\": [0-9]+") == "MISSING") print "move " i - 1 ": no to"
                if (field(m, "\"captures\": \\[[0-9, ]*\\]") == "MISSING") print "move " i - 1 ": no captures"
                mr = field(m, "\"result\": \"(win|loss|draw)\""); md = field(m, "\"dtw\": (null|[0-9]+)")
                if (mr == "MISSING" || md == "MISSING") print "move " i - 1 ": no result or dtw"
                if ((mr == "draw") != (md == "null")) print "move " i - 1 ": " mr " with dtw " md
                mrule = field(m, "\"rule\": \\{[^}]*\\}")
                if (mrule == "MISSING") print "move " i - 1 ": no rule object"
                if (i == 2 && field(mrule, "category: [a-z-]+") != field(rule, "category: [a-z-]+"))
                    print "the best move is " mrule " under the rule, the position " rule
                if (mr == r && md == d) carried = 1
                c = cat(field(mrule, "category: [a-z-]+")); t = field(mrule, "dtc: (null|[0-9]+)"); sub(/^dtc: /, "", t)
                k = c * 1e9 + rank(mr, md) * 1e4 + (c == 2 ? -t : c == -2 ? t : 0) # then the shorter DTC of a win
                if (k > prev) print "move " i - 1 " (" mr " " md ") is better than the one before"
                prev = k
            }
            if (!carried) print "no move carries the position value " r " " d
        }' "$TMP/q" >"$TMP/qerr"
    [ -s "$TMP/qerr" ] && fail "query --json $3: $(head -n 3 "$TMP/qerr" | tr '\n' ';') -- $(head -c 300 "$TMP/q")"
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/q" || fail "query --json $3: not valid JSON"
    fi
}
check_query brazilian "$BR" W:WK1,K2:B28 win 7
check_query brazilian "$BR" B:WK1,K2:B28 draw null
check_query brazilian "$BR" B:WK29:BK4,K1 win 3
check_query brazilian "$BR" W:WK29:BK4,K1 loss 2
check_query brazilian "$BR" W:WKd8,Kf8,Kb6:BKc3 win 3
check_query brazilian "$BR" W:WK1:BK4,K6,K18 win 3
check_query brazilian "$BR" W:Wb6:Bc7,e7 win 1
check_query international "$IN" W:W33:B2 win 17
check_query international "$IN" W:WK42:B22 win 7
"$DAMKA" query --tables "$BR" --json W:Wb6:Bc7,e7 >"$TMP/q" 2>"$TMP/err" || fail "query b6xf6: $(cat "$TMP/err")"
grep -q '"notation": "b6xf6", "from": 9, "to": 11, "captures": \[6, 7\]' "$TMP/q" ||
    fail "query --json: the capture b6xf6 is not described: $(cat "$TMP/q")"
"$DAMKA" query --tables "$BR" W:WK1,K2:B28 >"$TMP/q" 2>"$TMP/err"
case $(head -n 1 "$TMP/q") in
"W:WK1,K2:B28  win in 7 plies (White to move) · 15-move rule: "*) ;;
*) fail "query: $(head -n 1 "$TMP/q")" ;;
esac
[ "$(sed -n 2p "$TMP/q" | awk '{print $2, $3, $4, $5}')" = "win in 7 plies" ] || fail "query: the best move is not first"

# ============================================================================================
echo "-- i. a directory against a published manifest (damka compare)"
# expect_compare STATUS PATTERN args...: `damka compare args` exits STATUS and its output (stdout
# and stderr) has a line matching PATTERN.
expect_compare() {
    want=$1 pattern=$2
    shift 2
    "$DAMKA" compare "$@" >"$TMP/out" 2>&1
    rc=$?
    [ "$rc" -eq "$want" ] || fail "damka compare $*: exit status $rc, expected $want: $(head -n 3 "$TMP/out")"
    grep -q "$pattern" "$TMP/out" || fail "damka compare $*: no line '$pattern': $(tail -n 3 "$TMP/out")"
}
# the published sets (docs/tablesets/): the tables this build makes are theirs, byte for byte
DOCS=$(dirname "$0")/../docs/tablesets
expect_compare 0 '^41 tables the same, 0 differ, 44 absent, 0 not in the manifest$' "$DOCS/brazilian-5.manifest.json" "$BR"
expect_compare 0 '^41 tables the same, 0 differ, 114 absent, 0 not in the manifest$' "$DOCS/brazilian-6.manifest.json" "$BR"
expect_compare 0 '^41 tables the same, 0 differ, 114 absent, 0 not in the manifest$' "$DOCS/russian-6.manifest.json" "$RU"
expect_compare 0 "^$INTL_TABLES tables the same, 0 differ, $((155 - INTL_TABLES)) absent, 0 not in the manifest\$" \
    "$DOCS/international-6.manifest.json" "$IN"
PUB=$TMP/published.json
cp "$BR/manifest.json" "$PUB"
expect_compare 0 '^41 tables the same, 0 differ, 0 absent, 0 not in the manifest$' "$PUB" "$BR"
# a subset made again elsewhere, on 2 ranks: its tables are the published ones, the rest absent
SUB=$TMP/subset
mpigen 2 --materials 1m1k-0m1k --out "$SUB" --quiet 2>"$TMP/err" || fail "gen --materials 1m1k-0m1k: $(cat "$TMP/err")"
expect_compare 0 '^brazilian 1m1k-0m1k same$' "$PUB" "$SUB"
expect_compare 1 'tables of the manifest are absent' --whole "$PUB" "$SUB"
# the manifest compressed, and one of its figures changed: that table differs, named with it
zstd -q "$PUB" -o "$PUB.zst"
expect_compare 0 ' 0 differ' "$PUB.zst" "$SUB"
sed '/"material": "1m1k-0m1k"/s/"positions": \([0-9]*\)/"positions": 1\1/' "$PUB" >"$TMP/changed.json"
expect_compare 1 '^damka: compare: brazilian 1m1k-0m1k differs: positions is 1[0-9]* in the manifest, [0-9]* here$' \
    "$TMP/changed.json" "$SUB"
# a file of the copy damaged: named, exit 1; a table the manifest does not list: reported
printf 'x' | dd of="$SUB/brazilian-1m1k-0m1k.dtc" bs=1 seek=40 conv=notrunc 2>/dev/null
expect_compare 1 '^damka: compare: brazilian 1m1k-0m1k differs: .*brazilian-1m1k-0m1k.dtc' "$PUB" "$SUB"
grep -v '"material": "0m1k-0m1k"' "$PUB" >"$TMP/less.json"
expect_compare 0 '^brazilian 0m1k-0m1k not in the manifest$' "$TMP/less.json" "$BR"
expect_compare 1 'holds no table of the manifest' "$PUB" "$TMP/empty"
expect_bad compare "$PUB"
expect_bad compare "$TMP/missing.json" "$BR"
expect_bad compare "$BR/brazilian-0m1k-0m1k.stats" "$BR"
expect_bad compare "$PUB" "$TMP/missing"
expect_bad compare --frobnicate "$PUB" "$BR"
# a manifest padded with 5 MB of spaces, compressed so that a small input decodes to far more than
# the decoder's buffer: read whole; a frame saying more than 256 MiB (300 MiB of spaces in 9 KB)
# is refused, not read into memory
{ head -c -2 "$PUB"; head -c 5000000 /dev/zero | tr '\0' ' '; tail -c 2 "$PUB"; } | zstd -q -19 -o "$TMP/padded.json.zst"
expect_compare 0 '^41 tables the same, 0 differ, 0 absent' "$TMP/padded.json.zst" "$BR"
head -c 300000000 /dev/zero | tr '\0' ' ' | zstd -q -3 -o "$TMP/bomb.zst"
expect_bad compare "$TMP/bomb.zst" "$BR"
grep -q 'more than 256 MiB: not a manifest' "$TMP/err" || fail "a manifest decoding to 300 MiB: $(cat "$TMP/err")"

# ============================================================================================
echo "-- three kings against one king, Brazilian and Russian; Russian endings"
if [ -x "$THREE_KINGS" ] && [ -x "$RUSSIAN_ENDINGS" ]; then
    DK_TABLES=$BR "$THREE_KINGS" || fail "tests/test_three_kings"
    DK_TABLES=$RU DK_VARIANT=russian "$THREE_KINGS" || fail "tests/test_three_kings (russian)"
    DK_TABLES=$RU DK_BRAZILIAN=$BR "$RUSSIAN_ENDINGS" || fail "tests/test_russian_endings"
else
    fail "$THREE_KINGS or $RUSSIAN_ENDINGS is missing (make builds them)"
fi

echo "-- International king endings"
# Three kings against one and the FMJD's short counts; four kings against one (5 pieces, about
# 45 s of one core) only at full scale.
if [ "$SCALE" = small ]; then KINGS_MAT=0m3k-0m1k,1m1k-0m1k FIVE=0; else KINGS_MAT=0m4k-0m1k,1m1k-0m1k FIVE=1; fi
if [ ! -x "$INTL_KINGS" ]; then
    fail "$INTL_KINGS is missing (make builds it)"
elif timed "international $KINGS_MAT, 2 ranks" \
    mpigen 2 --variant international --materials "$KINGS_MAT" --out "$TMP/intl-kings" --quiet; then
    DK_TABLES=$TMP/intl-kings DK_FIVE=$FIVE "$INTL_KINGS" || fail "tests/test_intl_kings"
fi

if [ "$fails" -ne 0 ]; then
    echo "gen.sh: $fails failure(s)"
    exit 1
fi
echo "gen.sh: all passed"
