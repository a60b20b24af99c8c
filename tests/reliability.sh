#!/bin/sh
# One run per directory, and errors of every rank reaching the user: a second `damka gen` on a
# directory a live run holds is refused with one line naming the holder; the lock a killed run
# left is taken over with a note; a failure on rank 1 stops the run with rank 1's own message on
# stderr and a non-zero exit status.
# Usage: tests/reliability.sh path/to/damka-test
set -u
DAMKA=${1:?usage: tests/reliability.sh path/to/damka-test}

. "$(dirname "$0")/lib.sh"
needs_hooks tests/reliability.sh

echo "-- a. one run per directory"
L=$TMP/locked
gen --pieces 4 --out "$L" --quiet 2>"$TMP/first.err" &
JOB=$!
wait_for 60 has_units "$L" || fail "the first run made no unit in 60 s"
gen --pieces 4 --out "$L" --quiet >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -ne 0 ] || fail "a second run on a directory in use: exit status 0"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "a second run: not one line on stderr: $(cat "$TMP/err")"
grep -q "^damka: gen: .* is in use by another damka gen (host .* pid [0-9]* since .*)" "$TMP/err" ||
    fail "a second run: the message does not name the holder: $(cat "$TMP/err")"
sed 's/^/   /' "$TMP/err"
kill_tree "$JOB" # SIGKILL: the lock file stays, with its holder written in it
[ -s "$L/lock" ] || fail "the killed run left no lock file naming it"
gen --pieces 4 --out "$L" 2>"$TMP/err" || fail "after a killed run: $(tail -n 2 "$TMP/err")"
grep -q "taken over" "$TMP/err" || fail "after a killed run: no note that its lock was taken over"
grep "taken over" "$TMP/err" | sed 's/^/   /'
gen --pieces 4 --out "$L" 2>"$TMP/err" || fail "a third run on a finished directory: $(cat "$TMP/err")"
grep -q "taken over" "$TMP/err" && fail "a run that ended cleanly left its lock held: $(cat "$TMP/err")"

echo "-- b. an error on rank 1 reaches the user"
# rank1_fails WHAT VAR=VALUE PATTERN: a run of rank 0 as usual and rank 1 with the test hook
# VAR=VALUE (MPMD) must fail with rank 1's message, matching PATTERN, on stderr.
rank1_fails() {
    out=$TMP/rank1-$(echo "$2" | tr -c 'A-Za-z0-9\n' _)
    $MPIRUN -np 1 "$DAMKA" gen --pieces 3 --out "$out" --quiet : \
        -np 1 -x "$2" "$DAMKA" gen --pieces 3 --out "$out" --quiet >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" -ne 0 ] || fail "$1: exit status 0"
    grep -q "$3" "$TMP/err" || fail "$1: its message is not on stderr: $(head -c 400 "$TMP/err")"
    grep "^damka: " "$TMP/err" | sed 's/^/   /'
}
# the hook alters every unit rank 1 solves before the check
rank1_fails "a wrong value on rank 1" "DAMKA_TEST_CORRUPT_UNIT=*" \
    "^damka: gen: rank 1: verification failed: material .*, position W:"
# the hook makes rank 1's worker fail to start
rank1_fails "rank 1 failing to start" DAMKA_TEST_FAIL_INIT=1 "^damka: gen: rank 1: its worker cannot start"

[ "$fails" -eq 0 ] || { echo "reliability.sh: $fails failure(s)"; exit 1; }
echo "reliability.sh: all passed"
