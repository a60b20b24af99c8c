#!/bin/sh
# The probe library on real tables (issue 5): generates the Brazilian tables up to 4 pieces
# with --keep-work (the raw working copies hold gen's uncompressed values), then runs
# tests/test_probe on them (every position through libdamka against the raw values, threads,
# damaged and missing files) and tests/install.sh (make install, the example program built
# with pkg-config, shared and static, compared with `damka query`), and checks that the examples
# of README.md and docs/*.md print what they show (scripts/readme-examples --check: these tables
# are those `make run` makes) and that scripts/tableset-report's section of them agrees with
# `damka stats` (tests/tablesets.sh; the generation is timed by GNU time and DAMKA_TASK_TIMES for it).
# Usage: tests/probe.sh path/to/damka (the test programs are found beside it, in tests/).
# Environment: MAKE, CC, CFLAGS (the example program is built with them).
set -u
DAMKA=${1:?usage: tests/probe.sh path/to/damka}
BIN=$(dirname "$DAMKA")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

T=$TMP/br4
t0=$(date +%s.%N)
if ! DAMKA_TASK_TIMES="$TMP/gen.tasks" /usr/bin/time -v -o "$TMP/gen.time" "$DAMKA" gen --pieces 4 --out "$T" --keep-work --quiet 2>"$TMP/err"; then
    echo "FAIL: damka gen --pieces 4 --keep-work: $(tail -n 3 "$TMP/err")"
    exit 1
fi
echo "   brazilian up to 4 pieces with --keep-work: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
n=$(find "$T" -maxdepth 1 -name '*.wld' | wc -l)
[ "$n" -eq 41 ] || { echo "FAIL: $n .wld files, expected 41"; fails=$((fails + 1)); }
n=$(find "$T/work" -maxdepth 1 -name '*.raw' 2>/dev/null | wc -l)
[ "$n" -eq 41 ] || { echo "FAIL: $n raw working copies in $T/work, expected 41"; fails=$((fails + 1)); }

echo "   the examples of README.md and docs/"
if "$(dirname "$0")/../scripts/readme-examples" --check --damka "$DAMKA" --tables "$T" >"$TMP/examples" 2>&1; then
    tail -n 1 "$TMP/examples" | sed 's/^/   /'
else
    cat "$TMP/examples"
    echo "FAIL: an example of README.md or docs/ does not print what it shows (scripts/readme-examples --write puts the output in place)"
    fails=$((fails + 1))
fi
# an example of damka's output left without its marker would go unchecked: refused
printf 'text\n```\n$ build/damka plan --pieces 2 --ranks 1\nstale output\n```\n' >"$TMP/unmarked.md"
if "$(dirname "$0")/../scripts/readme-examples" --check --damka "$DAMKA" --tables "$T" "$TMP/unmarked.md" >"$TMP/examples" 2>&1 ||
    ! grep -q "unmarked.md:2: an example of damka's output without a marker" "$TMP/examples"; then
    echo "FAIL: readme-examples passes an unmarked example: $(cat "$TMP/examples")"
    fails=$((fails + 1))
fi
echo "   tablesets.sh"
"$(dirname "$0")/tablesets.sh" "$DAMKA" "$T" "$TMP/gen.time" "$TMP/gen.tasks" || fails=$((fails + 1))
echo "   test_probe"
DK_TABLES=$T "$BIN/tests/test_probe" || fails=$((fails + 1))
echo "   test_replace"
DK_TABLES=$T "$BIN/tests/test_replace" || fails=$((fails + 1))
echo "   test_finished"
DK_TABLES=$T "$BIN/tests/test_finished" || fails=$((fails + 1))
echo "   install.sh"
"$(dirname "$0")/install.sh" "$DAMKA" "$T" || fails=$((fails + 1))
[ "$fails" -eq 0 ] || { echo "probe.sh: $fails failure(s)"; exit 1; }
