#!/bin/sh
# Injected faults (issue 11): the N-th write, fsync, rename, open, mmap or allocation of a run
# fails (ENOSPC, EIO, ENOMEM, ...) through the preload library tests/faults/faultinject.c.
#   a. `damka gen --pieces 4`, 1 rank and 2 ranks: chains of runs in one directory, each run
#      with a fault at its own N-th call of one kind, N growing along the chain so that the
#      faults fall from start-up to the manifest. Each run must succeed or stop with a non-zero
#      exit and one `damka:` line naming the operation, the file and the error (never a signal,
#      a sanitizer report or a hang); each run resumes what the one before left; a run that
#      succeeds, and the clean run that ends each chain, must leave files byte-identical to an
#      undisturbed run.
#   b. `damka verify` under faults (open, pread, allocation): passes on good tables or fails
#      cleanly, never passes damaged ones.
#   c. libdamka opening and probing under faults (open, pread, allocation;
#      tests/tools/faultprobe): a probe gives the
#      right value or DAMAGED / NO_MEMORY, never another value, and one fault fails at most
#      one probe (a failed read is not remembered as a damaged table).
#   d. regressions: a .stats file that cannot be read while the manifest is made stops the run
#      (it used to be left out of manifest.json).
# Prints a summary line: runs, faults injected, clean stops, restarts, crashes, wrong answers.
# Usage: tests/faults.sh path/to/damka (the library and helper are found beside it).
# Under AddressSanitizer (damka linked with libasan) the library is preloaded after libasan,
# and allocation faults are left out: ASan's allocator serves them. DK_GEN_SCALE=small (make
# test-sanitize) generates up to 3 pieces, with fewer runs; full (make test) up to 4.
set -u
DAMKA=${1:?usage: tests/faults.sh path/to/damka}
BIN=$(dirname "$DAMKA")
LIB=$(cd "$BIN/tests/faults" 2>/dev/null && pwd)/faultinject.so
PROBE=$BIN/tests/tools/faultprobe
PROG=$(basename "$DAMKA") # the processes the library counts in (DAMKA_FAULT_PROGRAM)

. "$(dirname "$0")/lib.sh"

[ -f "$LIB" ] || { echo "faults.sh: $LIB is missing (make builds it)"; exit 1; }
[ -x "$PROBE" ] || { echo "faults.sh: $PROBE is missing (make builds it)"; exit 1; }

# DK_GEN_SCALE=small (make test-sanitize): up to 3 pieces and fewer runs
SCALE=${DK_GEN_SCALE:-full}
if [ "$SCALE" = small ]; then PIECES=3 NTABLES=16; else PIECES=4 NTABLES=41; fi

PRELOAD=$LIB
OPS="write fsync rename open mmap alloc"
# what reading finished tables (verify, libdamka) calls: open, pread, allocations; no mmap
READ_OPS="open read alloc"
asan=$(ldd "$DAMKA" | awk '/libasan/ { print $3; exit }')
if [ -n "$asan" ]; then
    PRELOAD=$asan:$LIB
    OPS="write fsync rename open mmap"
    READ_OPS="open read"
    echo "   (AddressSanitizer build: $LIB preloaded after $asan; allocation faults left out)"
fi
T0=$(now)
# A run still going after this many seconds is a hang: far above what any run takes, even on a
# machine busy with other work (a whole 4-piece run takes 10 s here, 4.5 min at a load of 14).
LIMIT=${FAULT_TIMEOUT:-900}

# Counters for the summary line.
runs=0     # runs under a fault
injected=0 # faults the library injected
stopped=0  # runs that stopped with a clean message
absorbed=0 # runs that met a fault and still succeeded (a fault damka may ignore)
restarts=0 # runs in a directory an earlier (faulty) run left unfinished
checked=0  # directories compared byte for byte with the reference
wrong=0    # answers or files that differ (must stay 0)
crashes=0  # signals, sanitizer reports, hangs (must stay 0)

# The text strerror gives for an errno name.
errtext() {
    case $1 in
    ENOSPC) echo "No space left on device" ;;
    EIO) echo "Input/output error" ;;
    ENOMEM) echo "Cannot allocate memory" ;;
    EDQUOT) echo "Disk quota exceeded" ;;
    EMFILE) echo "Too many open files" ;;
    EROFS) echo "Read-only file system" ;;
    *) echo "$1" ;;
    esac
}

# What a message must say for a fault of each kind.
opword() {
    case $1 in
    write) echo "write" ;;
    fsync) echo "fsync" ;;
    rename) echo "rename" ;;
    open) echo "open\|create" ;;
    mmap) echo "map" ;;
    read) echo "read" ;;
    alloc) echo "out of memory\|Cannot allocate memory" ;;
    esac
}

# Fault environment: fault_env OP N ERRNO DIR LOG [RANK] prints the assignments (for env or -x).
fault_env() {
    echo "LD_PRELOAD=$PRELOAD DAMKA_FAULT_OP=$1 DAMKA_FAULT_N=$2 DAMKA_FAULT_ERRNO=$3 DAMKA_FAULT_DIR=$4"
    echo "DAMKA_FAULT_LOG=$5 DAMKA_FAULT_PROGRAM=$PROG DAMKA_FAULT_ALLOC_FROM=main,libzstd"
    [ -n "${6:-}" ] && echo "DAMKA_FAULT_RANK=$6"
    [ -n "${TIMES:-}" ] && echo "DAMKA_FAULT_TIMES=$TIMES"
}

# crashed WHAT RC ERRFILE: a signal, a hang or a sanitizer's report is a crash.
crashed() {
    if [ "$2" -eq 124 ] || [ "$2" -ge 128 ] ||
        grep -q 'Sanitizer\|runtime error\|Segmentation\|core dumped\|exited on signal\|Aborted' "$3"; then
        crashes=$((crashes + 1))
        fail "$1: exit status $2 (a crash or a hang): $(grep -v '^ *$' "$3" | head -n 5 | tr '\n' ' ')"
        return 0
    fi
    return 1
}

# check_message WHAT OP LOG ERRFILE [many]: one `damka:` line (with `many`, the first of them),
# naming the operation, the file and the error of the fault the log records.
check_message() {
    nlines=$(grep -c '^damka: ' "$4")
    line=$(grep '^damka: ' "$4" | head -n 1)
    if [ "$nlines" -ne 1 ] && { [ "${5:-}" != many ] || [ "$nlines" -eq 0 ]; }; then
        fail "$1: $nlines lines starting 'damka: ' on stderr: $(head -n 4 "$4" | tr '\n' ' ')"
        return
    fi
    flt=$(grep '^fault ' "$3" | head -n 1)
    [ -n "$flt" ] || return 0
    # fault OP N ERRNO pid P rank R PATH
    set -- "$1" "$2" $flt
    what=$1 op=$2 ename=$6 path=${11}
    echo "$line" | grep -q "$(opword "$op")" || fail "$what: the message does not name the operation ($op): $line"
    [ "$op" = alloc ] && return 0
    echo "$line" | grep -qF "$(errtext "$ename")" || fail "$what: the message does not give the error ($ename): $line"
    file=$(basename "$path" | sed 's/\.tmp\.[0-9]*$//')
    echo "$line" | grep -qF "$file" || fail "$what: the message does not name the file ($file): $line"
}

# ============================================================================================
echo "-- the reference: undisturbed runs (the library preloaded, counting only)"
t0=$(now)
REF=$TMP/ref
CLOG=$TMP/count.log
env LD_PRELOAD="$PRELOAD" DAMKA_FAULT_PROGRAM="$PROG" DAMKA_FAULT_DIR="$REF" DAMKA_FAULT_LOG="$CLOG" \
    DAMKA_FAULT_ALLOC_FROM=main,libzstd \
    "$DAMKA" gen --pieces "$PIECES" --out "$REF" --quiet 2>"$TMP/err" || fail "reference run: $(cat "$TMP/err")"
[ "$(ntables "$REF")" -eq "$NTABLES" ] || fail "reference run: $(ntables "$REF") tables, expected $NTABLES"
# (a run through the library that gave other files would fail every comparison below, where
# the clean runs that end the chains run without it)
REF3=$TMP/ref3 # verify runs on 3 pieces: 0.3 s a run, against 10 s on 4
gen --pieces 3 --out "$REF3" --quiet 2>"$TMP/err" || fail "3-piece reference: $(cat "$TMP/err")"
# calls of each kind in a whole 1-rank run
count_of() { awk -v op="$1" '$1 == "calls" { for (i = 6; i < NF; i += 2) if ($i == op) print $(i + 1) }' "$CLOG" | head -n 1; }
echo "   calls in a run: $(for op in $OPS; do printf '%s %s, ' "$op" "$(count_of "$op")"; done)$(since "$t0") s"

# ============================================================================================
# chain RANKS WHAT TOKEN...: runs of `damka gen --pieces $PIECES` in one fresh directory, each on what
# the run before left, the k-th under the fault of TOKEN k, OP:N:ERRNO (its N-th call of OP
# fails with ERRNO) or OP:N:ERRNO:0 (every call of OP from the N-th on: a full disk); then a
# clean run. RANKS 1: `damka gen`; 2: mpirun -np 2 with the library given to one rank, 1 and 0
# in turn. A run that succeeds (a fault damka may absorb: a table that cannot be read at
# start-up is made again) leaves a complete directory, compared with the reference; the chain
# then goes on from the state of a run killed before the last third of the tables.
unfinish() {
    grep -o '"material": "[^"]*"' "$1/manifest.json" | sed 's/.*: "//; s/"//' >"$TMP/mats"
    n=$(wc -l <"$TMP/mats")
    tail -n $((n / 3)) "$TMP/mats" | while read -r m; do rm -f "$1/brazilian-$m".*; done
    rm -f "$1/manifest.json"
}
nchain=0
chain() {
    nr=$1 title=$2
    shift 2
    nchain=$((nchain + 1))
    D=$TMP/chain$nchain # (no operation's name in the path: messages are searched for them)
    rm -rf "$D"
    k=0
    nsucc=0
    done_ok=false
    t0=$(now)
    for token in "$@"; do
        k=$((k + 1))
        op=${token%%:*} rest=${token#*:}
        n=${rest%%:*} rest=${rest#*:}
        e=${rest%%:*}
        TIMES=""
        case $rest in *:*) TIMES=${rest#*:} ;; esac
        rank=$((nr == 1 ? 0 : k % 2))
        log=$TMP/fault.log
        rm -f "$log"
        what="gen, $nr rank(s), $op #$n ($e${TIMES:+, every call from then on}) on rank $rank"
        [ -d "$D" ] && restarts=$((restarts + 1))
        echo "$nr $op $n" >>"$TMP/nlist"
        if [ "$nr" = 1 ]; then
            # shellcheck disable=SC2046
            env $(fault_env "$op" "$n" "$e" "$D" "$log") \
                timeout -k 5 "$LIMIT" "$DAMKA" gen --pieces "$PIECES" --out "$D" --quiet >/dev/null 2>"$TMP/err"
        else
            # shellcheck disable=SC2046
            timeout -k 5 "$LIMIT" $MPIRUN -np 2 $(fault_env "$op" "$n" "$e" "$D" "$log" "$rank" | sed 's/\([^ ]*\)/-x \1/g') \
                "$DAMKA" gen --pieces "$PIECES" --out "$D" --quiet >/dev/null 2>"$TMP/err"
        fi
        rc=$?
        runs=$((runs + 1))
        nf=$(grep -c '^fault ' "$log" 2>/dev/null)
        injected=$((injected + nf))
        crashed "$what" "$rc" "$TMP/err" && continue
        if [ "$rc" -ne 0 ]; then
            [ "$nf" -gt 0 ] || fail "$what: no fault injected, yet exit status $rc: $(head -n 3 "$TMP/err")"
            stopped=$((stopped + 1))
            check_message "$what" "$op" "$log" "$TMP/err"
            continue
        fi
        [ "$nf" -gt 0 ] && absorbed=$((absorbed + 1))
        checked=$((checked + 1))
        if ! diff -r "$REF" "$D" >"$TMP/diff" 2>&1; then
            wrong=$((wrong + 1))
            fail "$what: succeeded, but the files differ from the reference: $(head -n 3 "$TMP/diff" | tr '\n' ' ')"
        fi
        nsucc=$((nsucc + 1))
        done_ok=true
        [ "$k" -lt "$#" ] && unfinish "$D" && done_ok=false
    done
    echo "   $title: $k runs, $nsucc of them succeeded: $(since "$t0") s"
    $done_ok && return
    restarts=$((restarts + 1))
    if [ "$nr" = 1 ]; then
        gen --pieces "$PIECES" --out "$D" --quiet 2>"$TMP/err"
    else
        mpigen 2 --pieces "$PIECES" --out "$D" --quiet 2>"$TMP/err"
    fi
    rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "clean run after the faults of chain $nchain ($title): exit status $rc: $(head -n 3 "$TMP/err")"
        return
    fi
    checked=$((checked + 1))
    if ! diff -r "$REF" "$D" >"$TMP/diff" 2>&1; then
        wrong=$((wrong + 1))
        fail "clean run after the faults of chain $nchain ($title): the files differ: $(head -n 3 "$TMP/diff" | tr '\n' ' ')"
    fi
}

# The errno of the k-th fault of a kind, in turn.
errno_of() {
    case $1 in
    write) set -- "$2" ENOSPC EIO EDQUOT ;;
    fsync) set -- "$2" EIO ENOSPC ;;
    rename) set -- "$2" EIO ENOSPC EDQUOT ;;
    open) set -- "$2" EIO ENOMEM EMFILE ENOSPC ;;
    mmap) set -- "$2" ENOMEM EIO ;;
    *) set -- "$2" ENOMEM ;;
    esac
    k=$1
    shift
    shift $((k % $#))
    echo "$1"
}

# tokens FIRST... -- PARTS SHARE [reverse]: for each N of FIRST, a fault at the N-th call of each
# kind (start-up); then PARTS runs with a fault at 1/PARTS of a kind's calls (SHARE 2: of one
# rank's calls, half a run's), the kinds in turn, so that the chain walks through a whole run.
tokens() {
    i=0
    while [ "$1" != -- ]; do
        for op in $OPS; do
            i=$((i + 1))
            printf '%s:%s:%s ' "$op" "$1" "$(errno_of "$op" "$i")"
        done
        shift
    done
    parts=$2 share=$3 order=$OPS
    [ "${4:-}" = reverse ] && order=$(echo "$OPS" | tr ' ' '\n' | tac | tr '\n' ' ')
    j=0
    while [ "$j" -lt "$parts" ]; do
        for op in $order; do
            [ "$j" -lt "$parts" ] || break
            j=$((j + 1))
            n=$(($(count_of "$op") / share / parts))
            printf '%s:%s:%s ' "$op" "$((n > 4 ? n : 4))" "$(errno_of "$op" "$j")"
        done
    done
}

echo "-- a. gen under faults, 1 rank"
# shellcheck disable=SC2046
if [ "$SCALE" = small ]; then
    # shellcheck disable=SC2046
    chain 1 "start-up, a full disk, then through the run" $(tokens 1 -- 0 1) \
        "write:$(($(count_of write) / 10)):ENOSPC:0" $(tokens -- 6 1)
else
    # shellcheck disable=SC2046
    chain 1 "start-up, a full disk, then through the run" $(tokens 1 2 -- 0 1) \
        "write:$(($(count_of write) / 10)):ENOSPC:0" $(tokens -- 8 1)
    # shellcheck disable=SC2046
    chain 1 "later start-up calls, then through the run" $(tokens 3 -- 6 1 reverse)
fi
echo "-- a. gen under faults, 2 ranks (the fault on rank 1, then 0, in turn)"
# shellcheck disable=SC2046
chain 2 "start-up, then through the run" $(tokens 1 -- "$([ "$SCALE" = small ] && echo 4 || echo 6)" 2)
echo "   gen: $runs runs under faults, $injected faults injected: $stopped stopped with one clear message," \
    "$absorbed succeeded despite the fault, $((runs - stopped - absorbed)) met no fault (N beyond the run's calls); $restarts restarts"
echo "   faulty runs by kind and ranks: $(sort -k2,2 -k1,1n -k3,3n "$TMP/nlist" | awk '
    { key = $2 " (" $1 " rank" ($1 > 1 ? "s" : "") ")"; if (!(key in c)) { order[++k] = key; lo[key] = $3 }
      c[key]++; hi[key] = $3 }
    END { for (i = 1; i <= k; i++) printf "%s%s %d, N %d-%d", (i > 1 ? "; " : ""), order[i], c[order[i]], lo[order[i]], hi[order[i]] }')"

# ============================================================================================
echo "-- b. verify under faults"
t0=$(now)
ginjected=$injected
FLIP=$TMP/flip3
cp -r "$REF3" "$FLIP"
F=$FLIP/brazilian-0m2k-0m1k.dtw
off=$(($(wc -c <"$F") / 2))
byte=$(od -An -tu1 -j "$off" -N1 "$F" | tr -d ' ')
printf "\\$(printf %o $((byte ^ 4)))" | dd of="$F" bs=1 seek="$off" conv=notrunc 2>/dev/null
vruns=0
verify_under() { # verify_under OP N ERRNO DIR GOOD
    log=$TMP/fault.log
    rm -f "$log"
    what="verify $(basename "$4"), $1 #$2 ($3)"
    # shellcheck disable=SC2046
    env $(fault_env "$1" "$2" "$3" "$4" "$log") timeout -k 5 "$LIMIT" "$DAMKA" verify --quiet "$4" >/dev/null 2>"$TMP/err"
    rc=$?
    runs=$((runs + 1))
    vruns=$((vruns + 1))
    nf=$(grep -c '^fault ' "$log" 2>/dev/null)
    injected=$((injected + nf))
    crashed "$what" "$rc" "$TMP/err" && return
    if [ "$rc" -eq 0 ]; then
        [ "$nf" -gt 0 ] && absorbed=$((absorbed + 1))
        if [ "$5" = damaged ]; then
            wrong=$((wrong + 1))
            fail "$what: a damaged table passes"
        fi
        return
    fi
    [ "$5" = good ] && [ "$nf" -eq 0 ] && fail "$what: no fault, yet exit status $rc: $(head -n 2 "$TMP/err")"
    [ "$nf" -gt 0 ] && stopped=$((stopped + 1))
    grep -q '^damka: verify: ' "$TMP/err" || fail "$what: no 'damka: verify:' line: $(head -n 3 "$TMP/err")"
    grep -q '^damka: verify: no tables' "$TMP/err" && fail "$what: says there are no tables: $(head -n 3 "$TMP/err")"
    # verify reports every table it cannot check: the first line names the fault
    if [ "$5" = good ]; then
        check_message "$what" "$1" "$log" "$TMP/err" many
    fi
}
# verify's calls: opens and reads (pread) of the tables, its allocations
rm -f "$TMP/vcount.log"
env LD_PRELOAD="$PRELOAD" DAMKA_FAULT_PROGRAM="$PROG" DAMKA_FAULT_DIR="$REF3" DAMKA_FAULT_LOG="$TMP/vcount.log" \
    DAMKA_FAULT_ALLOC_FROM=main,libzstd "$DAMKA" verify --quiet "$REF3" 2>/dev/null || fail "verify of the 3-piece reference"
vcount() { awk -v op="$1" '$1 == "calls" { for (i = 6; i < NF; i += 2) if ($i == op) print $(i + 1) }' "$TMP/vcount.log"; }
for op in $READ_OPS; do
    c=$(vcount "$op")
    ns="1 $((c / 4)) $((c / 2)) $((c * 3 / 4)) $c $((c + 1))"
    [ "$SCALE" = small ] && ns="1 $((c / 2)) $((c + 1))"
    for n in $ns; do
        [ "$n" -ge 1 ] || continue
        e=$( [ "$op" = alloc ] && echo ENOMEM || echo EIO)
        verify_under "$op" "$n" "$e" "$REF3" good
        verify_under "$op" "$n" "$e" "$FLIP" damaged
    done
done
echo "   $vruns verify runs, $((injected - ginjected)) faults injected (open: $(vcount open), read: $(vcount read), alloc: $(vcount alloc) calls in a run): $(since "$t0") s"

# ============================================================================================
echo "-- c. libdamka under faults"
t0=$(now)
vinjected=$injected
"$PROBE" "$REF" "$PIECES" 2000 >"$TMP/probe.ref" 2>"$TMP/err" || fail "faultprobe: $(cat "$TMP/err")"
grep -q '\[' "$TMP/probe.ref" && fail "faultprobe without faults: a probe failed: $(grep -m 1 '\[' "$TMP/probe.ref")"
rm -f "$TMP/pcount.log"
env LD_PRELOAD="$PRELOAD" DAMKA_FAULT_DIR="$REF" DAMKA_FAULT_LOG="$TMP/pcount.log" \
    "$PROBE" "$REF" "$PIECES" 2000 >"$TMP/probe.out" 2>&1
cmp -s "$TMP/probe.ref" "$TMP/probe.out" || fail "faultprobe under the library without faults: other answers"
pcount() { awk -v op="$1" '$1 == "calls" { for (i = 6; i < NF; i += 2) if ($i == op) print $(i + 1) }' "$TMP/pcount.log"; }
pruns=0
probe_failed=0
for op in $READ_OPS; do
    c=$(pcount "$op")
    for k in 0 1 2 3 4 5 6 7 8 9 10 11; do
        n=$((k < 3 ? k + 1 : c * (k - 2) / 9))
        [ "$n" -ge 1 ] || continue
        log=$TMP/fault.log
        rm -f "$log"
        e=$( [ "$op" = alloc ] && echo ENOMEM || echo EIO)
        what="faultprobe, $op #$n ($e)"
        env LD_PRELOAD="$PRELOAD" DAMKA_FAULT_OP="$op" DAMKA_FAULT_N="$n" DAMKA_FAULT_ERRNO="$e" \
            DAMKA_FAULT_DIR="$REF" DAMKA_FAULT_LOG="$log" \
            timeout -k 5 "$LIMIT" "$PROBE" "$REF" "$PIECES" 2000 >"$TMP/probe.out" 2>"$TMP/err"
        rc=$?
        runs=$((runs + 1))
        pruns=$((pruns + 1))
        nf=$(grep -c '^fault ' "$log" 2>/dev/null)
        injected=$((injected + nf))
        crashed "$what" "$rc" "$TMP/err" && continue
        [ "$rc" -eq 0 ] || fail "$what: exit status $rc"
        # every line the same as without faults, or the same probe failing with DAMAGED or
        # NO_MEMORY (or the open failing)
        bad=$(awk -v ref="$TMP/probe.ref" '
            {
                if ((getline want <ref) <= 0) { print "extra line: " $0; exit }
                if ($0 == want) next
                if ($0 ~ /^open \[out of memory\]$/) exit
                n = split(want, w, " "); split($0, g, " ")
                if (g[1] == w[1] && g[2] == w[2] && ($0 ~ / \[damaged table file\]$/ || $0 ~ / \[out of memory\]$/)) { failed++; next }
                print "got \"" $0 "\" for \"" want "\""; exit
            }
            END { print failed + 0 > "/dev/stderr" }' "$TMP/probe.out" 2>"$TMP/nfailed")
        if [ -n "$bad" ]; then
            wrong=$((wrong + 1))
            fail "$what: $bad"
        fi
        # a failed read or allocation is not remembered as a damaged file: one fault, one
        # failed call
        nfailed=$(cat "$TMP/nfailed")
        [ "$nfailed" -le "$nf" ] || fail "$what: $nf fault(s), $nfailed probes failed"
        probe_failed=$((probe_failed + nfailed))
    done
done
echo "   $pruns runs of 2000 positions (8000 probes) each, $((injected - vinjected)) faults injected; $probe_failed probes answered DAMAGED or NO_MEMORY, the others right: $(since "$t0") s"

# ============================================================================================
echo "-- d. regressions"
# The manifest is made from every .stats file: one that cannot be read must stop the run, not
# leave its table out of the manifest (which a run with the last .stats open failing wrote).
M=$TMP/manifest
cp -r "$REF" "$M"
rm "$M/manifest.json"
rm -f "$TMP/mcount.log"
# shellcheck disable=SC2046
env $(fault_env open 0 EIO "$M" "$TMP/mcount.log") DAMKA_FAULT_MATCH=.stats \
    "$DAMKA" gen --pieces "$PIECES" --out "$M" --quiet 2>"$TMP/err" || fail "gen writing the manifest: $(cat "$TMP/err")"
rm "$M/manifest.json"
c=$(awk '$1 == "calls" { for (i = 6; i < NF; i += 2) if ($i == "open") print $(i + 1) }' "$TMP/mcount.log")
n=$((c - $(find "$M" -name '*.stats' | wc -l) + 1)) # the manifest reads them last, in order
rm -f "$TMP/fault.log"
# shellcheck disable=SC2046
env $(fault_env open "$n" EIO "$M" "$TMP/fault.log") DAMKA_FAULT_MATCH=.stats \
    "$DAMKA" gen --pieces "$PIECES" --out "$M" --quiet 2>"$TMP/err"
rc=$?
runs=$((runs + 1))
injected=$((injected + $(grep -c '^fault ' "$TMP/fault.log")))
if ! crashed "gen, a .stats file unreadable when the manifest is made" "$rc" "$TMP/err"; then
    if [ "$rc" -eq 0 ]; then
        wrong=$((wrong + 1))
        fail "gen, a .stats file unreadable when the manifest is made: exit status 0"
    else
        stopped=$((stopped + 1))
        check_message "gen, a .stats file unreadable when the manifest is made" open "$TMP/fault.log" "$TMP/err"
    fi
    [ -e "$M/manifest.json" ] && fail "a manifest was written without every table"
fi
gen --pieces "$PIECES" --out "$M" --quiet 2>"$TMP/err" || fail "gen after the manifest failed: $(cat "$TMP/err")"
restarts=$((restarts + 1))
checked=$((checked + 1))
same_dir "$REF" "$M" "the manifest written again"

echo "faults.sh: $runs runs under faults, $injected faults injected: $stopped stopped with one clear" \
    "message, $absorbed succeeded despite the fault; $restarts restarts, $checked directories" \
    "byte-identical checks; $crashes crashes or hangs, $wrong wrong answers or files; $(since "$T0") s"
[ "$fails" -eq 0 ] || { echo "faults.sh: $fails failure(s)"; exit 1; }
echo "faults.sh: all passed"
