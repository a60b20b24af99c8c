#!/bin/sh
# damka serve as its users meet it (issues 33, 55, 57): generates the Brazilian and Russian tables
# up to 4 pieces and the International ones up to 3 in one directory, and Brazilian up to 3 under
# a 1-move rule in another, starts servers on free loopback ports and runs tests/serve_http.py
# against them: every endpoint and error, answers compared with `damka query --json`, Russian's
# own rules, a model of lidraughts' client, hostile input and clients, a damaged and a missing
# table, tables replaced under the server, SIGTERM; then scripts/lidraughts-check on each set.
# Usage: tests/serve.sh path/to/damka
set -u
DAMKA=${1:?usage: tests/serve.sh path/to/damka}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
T=$TMP/br4
t0=$(date +%s)
if ! "$DAMKA" gen --pieces 4 --out "$T" --quiet 2>"$TMP/err"; then
    echo "FAIL: damka gen --pieces 4: $(tail -n 3 "$TMP/err")"
    exit 1
fi
if ! "$DAMKA" gen --variant international --pieces 3 --out "$T" --quiet 2>"$TMP/err"; then
    echo "FAIL: damka gen --variant international --pieces 3: $(tail -n 3 "$TMP/err")"
    exit 1
fi
if ! "$DAMKA" gen --variant russian --pieces 4 --out "$T" --quiet 2>"$TMP/err"; then
    echo "FAIL: damka gen --variant russian --pieces 4: $(tail -n 3 "$TMP/err")"
    exit 1
fi
if ! "$DAMKA" gen --pieces 3 --draw-rule 1 --out "$TMP/short" --quiet 2>"$TMP/err"; then
    echo "FAIL: damka gen --pieces 3 --draw-rule 1: $(tail -n 3 "$TMP/err")"
    exit 1
fi
echo "   brazilian and russian up to 4 pieces, international up to 3, brazilian up to 3 under a 1-move rule: $(($(date +%s) - t0)) s"
python3 "$(dirname "$0")/serve_http.py" "$DAMKA" "$T" "$TMP/short" "$TMP" || exit 1
# scripts/lidraughts-check, which checks a whole set as lidraughts' client meets it (the
# International 6 set: docs/tablesets.md), on these small sets; then on a copy missing a table,
# where it must fail
CHECK="$(dirname "$0")/../scripts/lidraughts-check"
for v in international brazilian russian; do
    ok=0
    TMPDIR=$TMP python3 "$CHECK" --damka "$DAMKA" --variant $v --random 2 "$T" > "$TMP/check.out" 2>&1 || ok=1
    sed 's/^/   /' "$TMP/check.out"
    [ $ok = 0 ] || { echo "FAIL: scripts/lidraughts-check --variant $v"; exit 1; }
done
mkdir "$TMP/gap" && cp "$T"/international-* "$TMP/gap" && rm "$TMP/gap/international-1m1k-0m1k.dtw"
if TMPDIR=$TMP python3 "$CHECK" --damka "$DAMKA" --random 2 "$TMP/gap" > "$TMP/gap.out" 2>&1; then
    echo "FAIL: scripts/lidraughts-check passed a set missing a table"
    exit 1
fi
grep -q '^international: .*[0-9] failures$' "$TMP/gap.out" || { echo "FAIL: lidraughts-check on a set missing a table: $(tail -n 2 "$TMP/gap.out")"; exit 1; }
echo "   lidraughts-check: passes the three sets, fails one missing a table"
