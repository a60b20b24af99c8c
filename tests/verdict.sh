#!/bin/sh
# One verdict for one position in every interface (issue 55): generates the Brazilian tables up
# to 3 pieces and runs tests/verdict.py, which feeds tests/verdict.fens to damka query, moves,
# libdamka, the Python package and damka serve and compares their answers with docs/cli.md.
# Usage: tests/verdict.sh path/to/damka (libdamka.so next to it: make lib)
set -u
DAMKA=${1:?usage: tests/verdict.sh path/to/damka}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if ! "$DAMKA" gen --pieces 3 --out "$TMP/t3" --quiet 2>"$TMP/err"; then
    echo "FAIL: damka gen --pieces 3: $(tail -n 3 "$TMP/err")"
    exit 1
fi
python3 "$(dirname "$0")/verdict.py" "$DAMKA" "$TMP/t3"
