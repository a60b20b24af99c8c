#!/bin/sh
# damka serve as its users meet it (issue 33): generates the Brazilian tables up to 4 pieces and
# the International ones up to 3 in one directory, starts the server on a free loopback port and runs tests/serve_http.py against it: every
# endpoint and error, answers compared with `damka query --json`, hostile input, a damaged
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
echo "   brazilian up to 4 pieces, international up to 3: $(($(date +%s) - t0)) s"
python3 "$(dirname "$0")/serve_http.py" "$DAMKA" "$T" "$TMP"
