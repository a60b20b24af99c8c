#!/bin/sh
# damka serve as its users meet it (issues 33, 55, 57): generates the Brazilian and Russian tables
# up to 4 pieces and the International ones up to 3 in one directory, and Brazilian up to 3 under
# a 1-move rule in another, starts servers on free loopback ports and runs tests/serve_http.py
# against them: every endpoint and error, answers compared with `damka query --json`, Russian's
# own rules, a model of lidraughts' client, hostile input and clients, a damaged and a missing
# table, tables replaced under the server, SIGTERM.
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
python3 "$(dirname "$0")/serve_http.py" "$DAMKA" "$T" "$TMP/short" "$TMP"
