# Shell helpers of the generation tests (sourced, after the script has set DAMKA): a temporary
# directory removed at exit with any job still running, failures, timing, runs of damka gen,
# jobs in the background and how to kill them.
# shellcheck shell=sh

MPIRUN="mpirun --allow-run-as-root --oversubscribe"
TMP=$(mktemp -d)
JOB=""
cleanup() {
    [ -n "$JOB" ] && kill_tree "$JOB"
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# Exits unless $DAMKA is the test build, whose test hooks (gen/store/testhooks.h) script $1 uses.
needs_hooks() {
    strings -a "$DAMKA" | grep -q DAMKA_TEST_ ||
        { echo "$1: $DAMKA has no test hooks: give the test build, damka-test (make test builds it)"; exit 1; }
}

gen() { "$DAMKA" gen "$@"; }
mpigen() {
    np=$1; shift
    $MPIRUN -np "$np" "$DAMKA" gen "$@"
}

# Runs "$@" (a gen or mpigen command line), prints its time, FAILs on a non-zero exit.
timed() {
    what=$1; shift
    t0=$(now)
    "$@" 2>"$TMP/gen.err"
    rc=$?
    echo "   $what: $(since "$t0") s"
    [ "$rc" -eq 0 ] || fail "$what: exit status $rc: $(tail -n 3 "$TMP/gen.err")"
    return "$rc"
}

# --- processes: a job in the background, its descendants, SIGKILL ---

# The state letter of process $1 (R, S, Z, ...), empty if there is none; no process started.
state() {
    line=""
    { read -r line <"/proc/$1/stat"; } 2>/dev/null || return 0
    line=${line##*") "}
    echo "${line%% *}"
}
alive() { [ -e "/proc/$1" ] && st=$(state "$1") && [ -n "$st" ] && [ "$st" != Z ]; }

# Every descendant of process $1, from one reading of /proc.
descendants() {
    cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" '
        { s = $0; sub(/.*\) /, "", s); split(s, f, " "); parent[$1] = f[2] }
        END {
            want[root] = 1
            do {
                more = 0
                for (p in parent) if ((parent[p] in want) && !(p in want)) { want[p] = 1; more = 1 }
            } while (more)
            for (p in want) if (p != root) print p
        }'
}

# SIGKILL to a process and all its descendants at once, then waits until none is left.
kill_tree() {
    pids="$1 $(descendants "$1")"
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null
    wait "$1" 2>/dev/null
    for p in $pids; do
        n=0
        while alive "$p" && [ "$n" -lt 100 ]; do sleep 0.05; n=$((n + 1)); done
    done
    JOB=""
}

# The damka process of MPI rank $2 among the descendants of mpirun $1.
rank_pid() {
    for p in $(descendants "$1"); do
        if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
            echo "$p"
            return
        fi
    done
}

ntables() { find "$1" -maxdepth 1 -name '*.dtw' 2>/dev/null | wc -l; }
nunits() { find "$1/work" -type f ! -name '*.tmp.*' 2>/dev/null | wc -l; }

# wait_for SECONDS CONDITION...: polls until the condition holds or the job ends; false if not met.
wait_for() {
    limit=$1; shift
    n=0
    while [ "$n" -lt $((limit * 50)) ]; do
        "$@" && return 0
        alive "$JOB" || return 1
        sleep 0.02
        n=$((n + 1))
    done
    return 1
}
has_units() { [ "$(nunits "$1")" -ge 1 ]; }
has_tables() { [ "$(ntables "$1")" -ge "$2" ]; }

newer() { [ -n "$(find "$1" -newer "$2" 2>/dev/null)" ]; }

same_dir() {
    diff -r "$1" "$2" >"$TMP/diff" 2>&1 || fail "$3: directories differ: $(head -n 5 "$TMP/diff" | tr '\n' ' ')"
}

