#!/bin/sh
# The draw rule (issue 8): generates the table sets tests/test_drawrule checks and runs it, then
# checks `damka query` and `damka stats` under the rule, restart with another rule refused, and
# that verify catches an altered DTC value.
# Usage: tests/drawrule.sh path/to/damka-test (the test programs are found beside it, in tests/).
# DK_GEN_SCALE=small (make test): International up to 3 pieces; full (make test-full): 4.
set -u
DAMKA=${1:?usage: tests/drawrule.sh path/to/damka-test}
BIN=$(dirname "$DAMKA")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
strings -a "$DAMKA" | grep -q DAMKA_TEST_ ||
    { echo "tests/drawrule.sh: $DAMKA has no test hooks: give the test build, damka-test (make test builds it)"; exit 1; }
SCALE=${DK_GEN_SCALE:-full}
INTL=4
[ "$SCALE" = small ] && INTL=3
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 2"

now() { date +%s.%N; }
gen() {
    what=$1; shift
    t0=$(now)
    if ! $MPIRUN "$DAMKA" gen --quiet "$@" 2>"$TMP/err"; then
        fail "gen $what: $(tail -n 3 "$TMP/err")"
        return 1
    fi
    echo "   $what: $(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }') s"
}

gen "brazilian up to 4 pieces, 15-move rule" --pieces 4 --out "$TMP/br"
gen "brazilian up to 4 pieces, --draw-rule 3" --pieces 4 --draw-rule 3 --out "$TMP/br3"
gen "brazilian up to 4 pieces, --draw-rule 200" --pieces 4 --draw-rule 200 --out "$TMP/br200"
gen "international up to 3 pieces, 25-move rule" --variant international --pieces 3 --out "$TMP/in"
gen "international up to $INTL pieces, --draw-rule 3" --variant international --pieces $INTL --draw-rule 3 --out "$TMP/in3"

echo "   test_drawrule"
DK_RULE_DIRS="brazilian:30:4:$TMP/br brazilian:6:4:$TMP/br3 international:50:3:$TMP/in international:6:$INTL:$TMP/in3" \
    DK_HUGE_DIR="$TMP/br200" "$BIN/tests/test_drawrule" || fails=$((fails + 1))

echo "   query, stats, verify, restart"
# White king a1 takes c3: a win in 1 ply at any counter below 30; drawn by the rule at 30
out=$("$DAMKA" query --tables "$TMP/br" W:WK29:B22 | head -n 1)
case $out in
*"win in 1 ply (White to move) "*"15-move rule: win, 1 ply to conversion") ;;
*) fail "query W:WK29:B22: '$out'" ;;
esac
out=$("$DAMKA" query --tables "$TMP/br" --counter 29 --json W:WK29:B22)
case $out in
*'"result": "win", "dtw": 1, "rule": {"limit": 30, "counter": 29, "category": "win", "dtc": 1}, "moves": [{'*) ;;
*) fail "query --counter 29 --json W:WK29:B22: '$out'" ;;
esac
# at the rule's limit the game is drawn by the rule (as damka_probe_rule says): the moves get no
# rule value; beyond it the counter is refused as bad input
out=$("$DAMKA" query --tables "$TMP/br" --counter 30 W:WK29:B22 2>"$TMP/err")
case $out in
"W:WK29:B22  win in 1 ply (White to move) · cursed win: a draw under the 15-move rule (counter 30)
  "*"win in 1 ply") ;;
*) fail "query --counter 30 (the rule's limit): '$out' $(cat "$TMP/err")" ;;
esac
"$DAMKA" query --tables "$TMP/br" --counter 30 --json W:WK29:B22 | grep -q '"dtw": 1, "rule": null}\]}$' ||
    fail "query --counter 30 --json: the moves' rule is not null"
"$DAMKA" query --tables "$TMP/br" --counter 31 W:WK29:B22 >/dev/null 2>"$TMP/err"
[ $? -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "query --counter 31: $(cat "$TMP/err")"
"$DAMKA" query --tables "$TMP/br" --counter x W:WK29:B22 >/dev/null 2>&1 && fail "query --counter x accepted"
printf 'W:WK29:B22\n' | "$DAMKA" query --tables "$TMP/br" --batch >"$TMP/out" ||
    fail "query --batch: status $?"
grep -q "	win in 1 ply	15-move rule: win, 1 ply to conversion" "$TMP/out" || fail "query --batch: $(cat "$TMP/out")"
# each move of a position JSON carries its rule object, and the JSON parses
"$DAMKA" query --tables "$TMP/br3" --json W:WK1,K2,K3:BK32 >"$TMP/out" || fail "query --json: status $?"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["rule"]["limit"] == 6
assert all("rule" in m for m in d["moves"])' "$TMP/out" || fail "query --json: $(cat "$TMP/out")"
fi
# stats: the five categories per material, and the manifest's totals
"$DAMKA" stats "$TMP/br3" >"$TMP/out" || fail "stats: status $?"
grep -q "under the draw rule (6 plies" "$TMP/out" || fail "stats: no rule section"
grep -q '"cursed_wins": ' "$TMP/br3/manifest.json" || fail "manifest without rule counts"
# a directory holds one rule: another is refused with one line, nothing changes
cp "$TMP/br3/manifest.json" "$TMP/manifest"
"$DAMKA" gen --pieces 4 --out "$TMP/br3" --quiet 2>"$TMP/err" && fail "gen with another rule on br3 accepted"
grep -q "draw-rule 3" "$TMP/err" && [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "gen with another rule: $(cat "$TMP/err")"
cmp -s "$TMP/manifest" "$TMP/br3/manifest.json" || fail "gen with another rule changed the manifest"
# impossible options: one line, status 2, nothing written
for bad in -1 x 15001 ""; do
    "$DAMKA" gen --pieces 2 --draw-rule "$bad" --out "$TMP/badopt" 2>"$TMP/err"
    rc=$?
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && [ ! -e "$TMP/badopt" ] ||
        fail "gen --draw-rule '$bad': status $rc, $(cat "$TMP/err")"
done
# extending a finished directory rebuilds the working copies from the .dtw and .dtc files: the
# same bytes as one run
gen "brazilian up to 3 pieces" --pieces 3 --out "$TMP/ext"
gen "brazilian extended to 4 pieces" --pieces 4 --out "$TMP/ext"
for f in "$TMP/br"/*.dtc "$TMP/br"/*.dtw; do
    cmp -s "$f" "$TMP/ext/$(basename "$f")" || fail "extending 3 to 4 pieces: $(basename "$f") differs"
done
# --draw-rule 0 makes no .dtc files, and query says nothing of the rule
gen "brazilian up to 3 pieces, --draw-rule 0" --pieces 3 --draw-rule 0 --out "$TMP/br0"
[ -z "$(find "$TMP/br0" -name '*.dtc')" ] || fail "--draw-rule 0 wrote .dtc files"
out=$("$DAMKA" query --tables "$TMP/br0" W:WK29:B22 | head -n 1)
[ "$out" = "W:WK29:B22  win in 1 ply (White to move)" ] || fail "query without rule tables: '$out'"
"$DAMKA" query --tables "$TMP/br0" --counter 3 W:WK29:B22 >/dev/null 2>&1 && fail "--counter without rule tables accepted"
# its JSON has the members it always has: "rule" null at the top and in every move
json=$("$DAMKA" query --tables "$TMP/br0" --json W:WK29:B22)
echo "$json" | grep -q '^{"fen": "W:WK29:B22", "result": "win", "dtw": 1, "rule": null, "moves": \[{.*"dtw": 1, "rule": null}' &&
    [ "$(echo "$json" | grep -o '"rule": null' | wc -l)" -eq $(($(echo "$json" | grep -o '"notation"' | wc -l) + 1)) ] ||
    fail "query --json without rule tables: $json"
# verify checks DTC values one by one: an altered one (consistent checksums) is caught
"$BIN/tests/tools/tamper" "$TMP/br3/brazilian-0m3k-0m1k.dtc" 20000 >"$TMP/fen" || fail "tamper .dtc failed"
"$DAMKA" verify "$TMP/br3" >"$TMP/out" 2>"$TMP/err" && fail "verify accepted an altered DTC value"
grep -q "wrong value at $(cat "$TMP/fen")" "$TMP/err" || fail "verify of an altered DTC: $(cat "$TMP/err")"
# the generator's own check stops a run whose rule values are wrong
DAMKA_TEST_CORRUPT_RULE=3 "$DAMKA" gen --pieces 3 --out "$TMP/bad" --quiet 2>"$TMP/err" &&
    fail "gen with a corrupted rule value succeeded"
grep -q "verification failed" "$TMP/err" || fail "corrupted rule value: $(cat "$TMP/err")"

[ "$fails" -eq 0 ] || { echo "drawrule.sh: $fails failure(s)"; exit 1; }
echo "drawrule.sh: all passed"
