#!/bin/sh
# One run per directory, and errors of every rank reaching the user: a second `damka gen` on a
# directory a live run holds waits for it a while, saying for which process, then is refused
# with one line naming the holder; the lock a killed run left is taken over with a note; a
# failure on rank 0 or 1 (a wrong value, a worker that cannot start, an MPI call that fails)
# stops the run with that rank's own message on stderr and a non-zero exit status; a directory
# whose path is too long is refused; the ranks of a job whose launcher is killed stop at once,
# and a run started right after proceeds.
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
# the holder stopped while the other runs try: it keeps its lock, however soon it would finish
# shellcheck disable=SC2046
kill -STOP "$JOB" $(descendants "$JOB") 2>/dev/null
# the wait for a live holder shortened by the test hook (gen/run/dirlock.h)
DAMKA_TEST_LOCK_WAIT=0.5 gen --pieces 4 --out "$L" --quiet >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -ne 0 ] || fail "a second run on a directory in use: exit status 0"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "a second run: not one line on stderr: $(cat "$TMP/err")"
grep -q "^damka: gen: .* is in use by another damka gen (host .* pid [0-9]* since .*)" "$TMP/err" ||
    fail "a second run: the message does not name the holder: $(cat "$TMP/err")"
sed 's/^/   /' "$TMP/err"
# without --quiet, the wait is said first, with the holder's process id from the lock itself
holder=$(sed -n 's/.* pid \([0-9]*\) .*/\1/p' "$L/lock")
DAMKA_TEST_LOCK_WAIT=0.5 gen --pieces 4 --out "$L" >"$TMP/out" 2>"$TMP/err" && fail "a third run on a directory in use: exit status 0"
head -n 1 "$TMP/err" | grep -q "^gen: $L is locked by pid $holder (host .*): waiting up to 0.5 s for it to end$" ||
    fail "a run on a directory in use: no line saying it waits for pid $holder: $(cat "$TMP/err")"
head -n 1 "$TMP/err" | sed 's/^/   /'
kill_tree "$JOB" # SIGKILL: the lock file stays, with its holder written in it
[ -s "$L/lock" ] || fail "the killed run left no lock file naming it"
gen --pieces 4 --out "$L" 2>"$TMP/err" || fail "after a killed run: $(tail -n 2 "$TMP/err")"
grep -q "taken over" "$TMP/err" || fail "after a killed run: no note that its lock was taken over"
grep "taken over" "$TMP/err" | sed 's/^/   /'
gen --pieces 4 --out "$L" 2>"$TMP/err" || fail "a third run on a finished directory: $(cat "$TMP/err")"
grep -q "taken over" "$TMP/err" && fail "a run that ended cleanly left its lock held: $(cat "$TMP/err")"

# a directory whose path would not fit the run's path buffers: refused at once, in one line
long=$TMP/$(printf '%01100d' 0)
gen --pieces 2 --out "$long" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] || fail "a directory's path too long: exit status $rc, not 2"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "^damka: gen: --out: .*: a path of [0-9]* bytes, more than the 1024" "$TMP/err" ||
    fail "a directory's path too long: not one line saying so: $(head -c 300 "$TMP/err")"
[ -e "$long" ] && fail "a directory's path too long: the directory was made"
sed 's/^/   /' "$TMP/err"

echo "-- b. an error on any rank reaches the user"
# rank_fails RANK WHAT VAR=VALUE PATTERN: a run of 2 ranks, rank RANK (0 or 1) with the test hook
# VAR=VALUE (MPMD), must fail within 120 s (no hang) with that rank's message, matching PATTERN,
# on stderr.
rank_fails() {
    out=$TMP/rank$1-$(echo "$3" | tr -c 'A-Za-z0-9\n' _)
    if [ "$1" -eq 0 ]; then hook0="-x $3" hook1=""; else hook0="" hook1="-x $3"; fi
    # shellcheck disable=SC2086
    timeout 120 $MPIRUN -np 1 $hook0 "$DAMKA" gen --pieces 3 --out "$out" --quiet : \
        -np 1 $hook1 "$DAMKA" gen --pieces 3 --out "$out" --quiet >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" -ne 0 ] || fail "$2: exit status 0"
    [ "$rc" -ne 124 ] || fail "$2: the run hangs"
    grep -q "$4" "$TMP/err" || fail "$2: its message is not on stderr: $(head -c 400 "$TMP/err")"
    grep "^damka: " "$TMP/err" | sed 's/^/   /'
}
# the hook alters every unit rank 1 solves before the check
rank_fails 1 "a wrong value on rank 1" "DAMKA_TEST_CORRUPT_UNIT=*" \
    "^damka: gen: rank 1: verification failed: material .*, position W:"
# the hook makes a rank's worker fail to start, or rank 0's memory for its worker thread fail
rank_fails 1 "rank 1 failing to start" DAMKA_TEST_FAIL_INIT=1 "^damka: gen: rank 1: its worker cannot start"
rank_fails 0 "rank 0 failing to start" DAMKA_TEST_FAIL_INIT=1 "^damka: gen: rank 0: its worker cannot start"
rank_fails 0 "rank 0 without memory for its worker" DAMKA_TEST_FAIL_INIT=alloc \
    "^damka: gen: rank 0: its worker cannot start: out of memory"
# an MPI call that fails on rank 1, whose stderr is otherwise /dev/null: said, and the job ends
rank_fails 1 "an MPI call failing on rank 1" DAMKA_TEST_MPI_FAIL=1 "^damka: gen: rank 1: MPI failed: MPI_ERR_RANK"
# a broken invariant (rules/check.h) on rank 1: said on the stderr it started with, and the job ends
rank_fails 1 "a broken invariant on rank 1" DAMKA_TEST_BROKEN_INVARIANT=1 \
    "^damka: internal error: gen/.*transport.c:[0-9]*: a broken invariant: !dk_hook_broken_invariant()"

echo "-- c. the ranks of a killed job stop at once; a run started right after proceeds"
# (1) mpirun and its process group SIGKILLed (with Open MPI the ranks are its children, each in
# a group of its own): no rank runs 2 s later, and a run started at once on the directory gets
# its lock, after waiting for the dying rank 0 if it still held it
K=$TMP/killedjob
setsid $MPIRUN -np 2 "$DAMKA" gen --pieces 4 --out "$K" --quiet 2>/dev/null &
JOB=$!
wait_for 60 has_units "$K" || fail "the job made no unit in 60 s"
r0=$(rank_pid "$JOB" 0)
r1=$(rank_pid "$JOB" 1)
[ -n "$r0" ] && [ -n "$r1" ] || fail "the job's two ranks not found: '$r0' '$r1'"
kill -KILL "-$JOB"
gen --pieces 4 --out "$K" 2>"$TMP/err" &
NEXT=$!
t0=$(now)
# gone_within SECONDS PID...: waits for the processes to end; FAILs naming any still running
gone_within() {
    limit=$1; shift
    for p in "$@"; do
        n=0
        while alive "$p" && [ "$n" -lt $((limit * 50)) ]; do sleep 0.02; n=$((n + 1)); done
        alive "$p" && { fail "rank process $p still runs $limit s after its job was killed"; kill -KILL "$p"; }
    done
}
gone_within 2 "$r0" "$r1"
echo "   the ranks gone $(since "$t0") s after the kill"
wait "$JOB" 2>/dev/null
JOB=$NEXT
wait "$NEXT" || fail "the run started right after the kill: $(tail -n 2 "$TMP/err")"
JOB=""
grep -q "taken over" "$TMP/err" || fail "the run started right after the kill: no note that it took the lock over"
grep "waiting up to\|taken over" "$TMP/err" | sed 's/^/   /'
# (2) a launcher that dies without telling the rank's MPI library anything (here a shell
# standing for it, around a process of one rank that believes itself launched): the rank
# notices its parent is gone and stops
P=$TMP/orphan
PMI_RANK=0 sh -c "\"$DAMKA\" gen --pieces 4 --out \"$P\" --quiet 2>\"$TMP/orphan.err\" & echo \$! >\"$TMP/orphan.pid\"; wait" &
JOB=$!
wait_for 60 has_units "$P" || fail "the orphan's run made no unit in 60 s"
orphan=$(cat "$TMP/orphan.pid")
kill -KILL "$JOB"
wait "$JOB" 2>/dev/null
JOB=""
t0=$(now)
gone_within 2 "$orphan"
echo "   the rank gone $(since "$t0") s after its launcher"
grep -q "^damka: gen: the job's launcher is gone" "$TMP/orphan.err" ||
    fail "a rank whose launcher died: no line saying why it stops: $(cat "$TMP/orphan.err")"

[ "$fails" -eq 0 ] || { echo "reliability.sh: $fails failure(s)"; exit 1; }
echo "reliability.sh: all passed"
