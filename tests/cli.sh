#!/bin/sh
# Command-line behaviour of damka: outputs users and scripts rely on, and bad input giving one
# clear line on stderr with a non-zero exit (never a crash). Usage: tests/cli.sh path/to/damka
set -u
DAMKA=${1:?usage: tests/cli.sh path/to/damka}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect_out "expected last stdout line" args...
expect_last() {
    want=$1; shift
    got=$("$DAMKA" "$@" 2>"$TMP/err" | tail -n 1)
    [ "$got" = "$want" ] || fail "damka $*: last line '$got', expected '$want'"
}

# expect_bad args...: exit status 1..127, exactly one line on stderr starting with "damka: ".
expect_bad() {
    "$DAMKA" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    lines=$(wc -l <"$TMP/err")
    if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then
        fail "damka $*: exit status $rc"
    elif [ "$lines" -ne 1 ] || ! grep -q '^damka: ' "$TMP/err"; then
        fail "damka $*: stderr is not one 'damka: ...' line: $(cat "$TMP/err")"
    fi
}

expect_last 907830 perft 8
expect_last 907830 perft --variant brazilian 8
expect_last 167140 perft --variant international 6
expect_last 167140 perft --variant 20 W:W31-50:B1-20 6
expect_last 4431766 perft --variant=26 W:W21-32:B1-12 9
expect_last 929899 perft --variant russian 8
expect_last 4570586 perft --variant 25 W:W21-32:B1-12 9
expect_last 1 perft W:W21-32:B1-12 0
grep -q 'leaves/s' "$TMP/err" || fail "perft prints no speed on stderr"

# --divide: one line per move, then the total alone.
"$DAMKA" perft --divide 3 >"$TMP/out" 2>/dev/null
[ "$(wc -l <"$TMP/out")" -eq 8 ] || fail "perft --divide 3: expected 7 moves and a total"
[ "$(tail -n 1 "$TMP/out")" = 302 ] || fail "perft --divide 3: total"
sum=$(head -n 7 "$TMP/out" | awk '{s += $2} END {print s}')
[ "$sum" = 302 ] || fail "perft --divide 3: the moves add up to $sum"
grep -q '^c3-d4 ' "$TMP/out" || fail "perft --divide: Brazilian moves are algebraic"

# moves
[ "$("$DAMKA" moves W:Wb6:Bc7,e7)" = "b6xf6" ] || fail "moves: Brazilian rule position"
[ "$("$DAMKA" moves --variant international W:W15:B9,10)" = "15x13" ] || fail "moves: 15x13"
[ "$("$DAMKA" moves --variant russian W:Wb6:Bc7,e7 | tr '\n' ' ')" = "b6xf6 b6xg5 b6xh4 " ] ||
    fail "moves: Russian crowns in passing"
[ "$("$DAMKA" moves --variant international W:W31-50:B1-20 | wc -l)" -eq 9 ] || fail "moves: start"
"$DAMKA" moves --json --variant international W:WK47:B9,12,33 >"$TMP/out"
grep -q '"from": 47, "to": 26, "captures": \[9, 12, 33\]' "$TMP/out" || fail "moves --json: 47x26"
[ "$(grep -c notation "$TMP/out")" -eq 3 ] || fail "moves --json: three moves"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); assert len(a)==3' "$TMP/out" ||
        fail "moves --json is not valid JSON"
fi
[ "$("$DAMKA" moves --json W:Wa1:Bb2,c3)" = "[]" ] || fail "moves --json: no move is []"

# bad input
expect_bad
expect_bad frobnicate
expect_bad perft
expect_bad perft x
expect_bad perft -1
expect_bad perft 3 4 5
expect_bad perft --depth 3
expect_bad perft --variant
expect_bad perft --variant russia 3
expect_bad perft W:W33:B1 3
expect_bad perft --variant international W:Wa1:B1 2
expect_bad perft 99999999999999999999
expect_bad moves
expect_bad moves W:W30:B30
expect_bad moves W:W1:B30
expect_bad moves W:W13-32:B1
expect_bad moves "W:W30:B1 2"
expect_bad moves W:W30:B1 W:W30:B2
expect_bad moves --jsn W:W30:B1
expect_bad moves ""
expect_bad moves :::::
"$DAMKA" --help >/dev/null || fail "--help exits non-zero"

# info and plan: the work graph gen would build (one unit bound, --unit-positions, one default)
units() { sed -n 's/.*"units": {"count": \([0-9]*\).*/\1/p; s/.*"work": {"units": \([0-9]*\).*/\1/p'; }
for n in 4 6; do
    info=$("$DAMKA" info --pieces $n --json | units)
    plan=$("$DAMKA" plan --pieces $n --ranks 2 --json | units)
    [ -n "$info" ] && [ "$info" = "$plan" ] || fail "info and plan disagree on the units of $n pieces: '$info', '$plan'"
done
[ "$("$DAMKA" info --pieces 4 --unit-positions 1000 --json | units)" = \
  "$("$DAMKA" plan --pieces 4 --ranks 1 --unit-positions 1000 --json | units)" ] ||
    fail "info and plan disagree under --unit-positions"
"$DAMKA" plan --pieces 5 --ranks 2 >"$TMP/out" 2>"$TMP/err" || fail "plan --pieces 5 --ranks 2 fails"
for what in "wall time on 2 ranks:" "critical path (unlimited ranks):" "critical path made of: [0-9]* units" \
    "saturation:" "memory a rank:" "disk:" "tables read:"; do
    grep -q "^$what" "$TMP/out" || fail "plan prints no '$what' line"
done
grep -q '^disk: .* written in all$' "$TMP/out" || fail "plan's disk line says nothing of what is written in all"
[ -s "$TMP/err" ] && fail "plan writes to stderr: $(cat "$TMP/err")"
"$DAMKA" plan --materials 1m1k-1m1k --ranks 4 --memory-per-rank 1G --rate 1e6 --draw-rule 0 --json >"$TMP/out" ||
    fail "plan --materials ... --json fails"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
assert d["ranks"] == 4 and d["draw_rule"] == 0 and d["materials"] == ["1m1k-1m1k"]
assert abs(d["model"]["mean_rate"] / 1e6 - 1) < 1e-6 and d["memory"]["budget"] == 1 << 30
m = d["memory"]
assert 0 < m["peak"] == sum(m["peak_parts"].values()) <= m["budget"] and m["peak_parts"]["fixed"] == 48 << 20
assert d["critical_path_seconds"] <= d["wall_seconds"] <= d["work_seconds"]
c = d["critical_path"]
links = sum(c[k]["seconds"] for k in ("units", "split_units", "finishings", "scans", "packings", "joins"))
assert abs(links - d["critical_path_seconds"]) <= 1e-6 * d["critical_path_seconds"] and c["units"]["tasks"] >= 1
assert 0 <= c["decode_seconds"] <= c["units"]["seconds"] + c["split_units"]["seconds"]
assert 1 <= d["saturation"]["ranks"] and d["model"]["table_bits"]["dtc"] == 0
assert d["model"]["decode_seconds"] > 0 and 0 <= d["tables_read"]["decode_work_seconds"] <= d["work_seconds"]
units = d["work"]["positions"] * d["model"]["unit_bits"] / 8
assert d["disk"]["peak"] <= d["disk"]["written"] and abs(d["disk"]["written"] - d["disk"]["tables"] - units) <= 1e-3 * d["disk"]["written"]' "$TMP/out" ||
        fail "plan --json: $(cat "$TMP/out")"
fi
# --speed divides every time of the model: the same plan, each figure of time divided by it
"$DAMKA" plan --pieces 4 --ranks 2 --json >"$TMP/slow" && "$DAMKA" plan --pieces 4 --ranks 2 --speed 2.5 --json >"$TMP/fast" ||
    fail "plan --speed 2.5 fails"
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2]))
assert a["model"]["speed"] == 1 and b["model"]["speed"] == 2.5
for k in ("wall_seconds", "work_seconds", "critical_path_seconds"):
    assert abs(a[k] / b[k] - 2.5) < 1e-4, k
for k in ("unit_seconds", "finish_seconds", "decode_seconds"):
    assert abs(a["model"][k] / b["model"][k] - 2.5) < 2e-3, k
assert a["memory"] == b["memory"] and a["disk"] == b["disk"]' "$TMP/slow" "$TMP/fast" ||
        fail "plan --speed 2.5 is not the plan with its times divided by 2.5"
fi
"$DAMKA" plan --pieces 4 --ranks 2 --speed 2.5 | grep -q '^cost model: .*(its times divided by --speed 2.5)$' ||
    fail "plan's cost model line does not say --speed"
"$DAMKA" plan --help >"$TMP/out" || fail "plan --help exits non-zero"
for opt in --variant --pieces --per-side --materials --ranks --draw-rule --memory-per-rank --unit-positions --rate \
    --speed --json; do
    grep -q -- "$opt" "$TMP/out" || fail "plan --help does not mention $opt"
    "$DAMKA" --help | grep -A3 'damka plan' | grep -q -- "$opt" || fail "damka --help: plan lacks $opt"
done
for opt in --variant --pieces --per-side --unit-positions --json; do
    "$DAMKA" --help | grep -A1 'damka info' | grep -q -- "$opt" || fail "damka --help: info lacks $opt"
done
# plan over materials whose units are split (kings only), rank counts and budgets: an answer or
# a one-line refusal, never a crash (a heap too small for the ranks of a split unit aborted)
for mat in 0m4k-0m3k 0m5k-0m2k 0m3k-0m3k 0m4k-0m2k; do
    for ranks in 1 2 3 64; do
        for mem in 2G 4G 11G; do
            "$DAMKA" plan --materials $mat --ranks $ranks --memory-per-rank $mem >"$TMP/out" 2>"$TMP/err"
            rc=$?
            if [ "$rc" -eq 0 ]; then
                grep -q '^wall time on' "$TMP/out" || fail "plan --materials $mat --ranks $ranks --memory-per-rank $mem: no wall time"
            elif [ "$rc" -ge 128 ] || [ "$(wc -l <"$TMP/err")" -ne 1 ]; then
                fail "plan --materials $mat --ranks $ranks --memory-per-rank $mem: exit $rc: $(head -c 300 "$TMP/err")"
            fi
        done
    done
done
for ranks in 1 3 8; do
    "$DAMKA" plan --pieces 5 --ranks $ranks --memory-per-rank 1G --unit-positions 65536 --split-positions 65536 \
        >"$TMP/out" 2>"$TMP/err" || fail "plan with split 5-piece units on $ranks ranks: $(cat "$TMP/err")"
done
expect_bad plan
expect_bad plan --pieces 5
expect_bad plan --pieces 5 --ranks 0
expect_bad plan --pieces 5 --ranks 2 --rate fast
expect_bad plan --pieces 5 --ranks 2 --speed fast
expect_bad plan --pieces 5 --ranks 2 --speed 0
expect_bad plan --pieces 5 --ranks 2 --speed 1.5 --rate 1e6
expect_bad plan --pieces 5 --ranks 2 --unit-positions 0
expect_bad plan --pieces 5 --ranks 2 --memory-per-rank 12Q
expect_bad plan --pieces 5 --ranks 2 --frobnicate
[ "$rc" -eq 2 ] || fail "plan with an unknown option exits $rc, not 2"
expect_bad plan --pieces 5 --ranks 2 --memory-per-rank 10M
expect_bad info --pieces 4 --unit-positions 0

# --help: what each command's help lists is exactly what its parser accepts, derived from the
# help texts alone. An option a command's help names is accepted (alone it is refused for a
# missing argument, never as unknown; one that the usage shows with a value, "--out DIR", says
# it needs one); an option another command's help names and this one's does not is refused as
# unknown. The usage agrees with `damka --help` and with the "Use" block of docs/cli.md.
README=$(dirname "$0")/../README.md
USE_DOC=$(dirname "$0")/../docs/cli.md
mkdir -p "$TMP/empty"
case $DAMKA in /*) ABS=$DAMKA ;; */*) ABS=$PWD/$DAMKA ;; *) ABS=$(command -v "$DAMKA") ;; esac
words() { tr -c 'A-Za-z0-9_-' '\n' | grep -E '^(--[a-z][-a-z]*|-[a-z])$' | sort -u; }
# usage_of TEXT: the usage lines of a command's help (up to the first blank line)
usage_of() { sed -n '1,/^$/p'; }
# takes_value OPTION < usage: whether the usage shows OPTION with a value (not an optional [VALUE])
takes_value() {
    tr -s ' \n' '\n\n' |
        awk -v o="$1" 'prev == o { found = ($0 ~ /^[A-Z]/) } { prev = $0; sub(/^[[(]+/, "", prev) } END { exit !found }'
}
commands=$("$DAMKA" --help | sed -n 's/^  damka \([a-z]*\) .*/\1/p')
[ "$(echo "$commands" | wc -w)" -eq 10 ] || fail "damka --help lists commands '$(echo $commands)'"
for c in $commands; do
    "$DAMKA" "$c" --help >"$TMP/help.$c" 2>"$TMP/err" || fail "damka $c --help: exit status $?"
    [ -s "$TMP/err" ] && fail "damka $c --help writes to stderr"
    head -n 1 "$TMP/help.$c" | grep -q "^usage: damka $c " || fail "damka $c --help: first line $(head -n 1 "$TMP/help.$c")"
    "$DAMKA" "$c" -h | cmp -s - "$TMP/help.$c" || fail "damka $c -h differs from --help"
    words <"$TMP/help.$c" >"$TMP/opts.$c"
    usage_of <"$TMP/help.$c" | words >"$TMP/usage.$c"
    # the options listed = those of the usage, and -h, --help
    { cat "$TMP/usage.$c"; printf -- '-h\n--help\n'; } | sort -u | cmp -s - "$TMP/opts.$c" ||
        fail "damka $c --help: options '$(echo $(cat "$TMP/opts.$c"))', usage '$(echo $(cat "$TMP/usage.$c"))'"
    # damka --help shows the same usage
    "$DAMKA" --help | awk -v c="$c" '$1 == "damka" { on = ($2 == c) } on' | words |
        cmp -s - "$TMP/usage.$c" || fail "damka --help and damka $c --help disagree on the options of $c"
    # the Use block of docs/cli.md: the command's line and the lines that continue it
    awk '/^## Use/ { use = 1 } use && /^```/ { n++ } use && n == 1' "$USE_DOC" |
        awk -v c="$c" '/^build\/damka / { on = ($2 == c) } /^[a-z]/ && !/^build\/damka / { on = 0 } on' |
        words | cmp -s - "$TMP/usage.$c" || fail "the Use block of docs/cli.md and damka $c --help disagree on its options"
done
sort -u "$TMP"/opts.* >"$TMP/all"
[ "$(wc -l <"$TMP/all")" -ge 20 ] || fail "the help texts name only $(wc -l <"$TMP/all") options"
for c in $commands; do
    while read -r o; do
        if grep -qx -- "$o" "$TMP/opts.$c"; then
            case $o in -h | --help) continue ;; esac
            (cd "$TMP/empty" && env -u DAMKA_TABLES "$ABS" "$c" "$o" </dev/null >"$TMP/out" 2>"$TMP/err")
            rc=$?
            [ "$rc" -lt 128 ] || fail "damka $c $o crashed ($rc)"
            if grep -q "unknown option" "$TMP/err"; then
                fail "damka $c $o: listed by its --help but refused: $(cat "$TMP/err")"
            elif usage_of <"$TMP/help.$c" | takes_value "$o"; then
                grep -q -- "$o needs a value" "$TMP/err" ||
                    fail "damka $c $o: the usage shows a value, the parser does not ask for it: $(cat "$TMP/err")"
            elif grep -q "needs a value" "$TMP/err"; then
                fail "damka $c $o: the usage shows no value, the parser asks for one"
            fi
        else
            "$DAMKA" "$c" "$o" </dev/null >/dev/null 2>"$TMP/err"
            rc=$?
            [ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q -- "unknown option '$o'" "$TMP/err" ||
                fail "damka $c $o: not in its --help but not refused as unknown (status $rc): $(cat "$TMP/err")"
        fi
    done <"$TMP/all"
done
expect_bad gen --unit-size 1000 --pieces 2 --out "$TMP/never"
[ ! -e "$TMP/never" ] || fail "gen --unit-size (no longer an option) wrote $TMP/never"
"$DAMKA" help query | cmp -s - "$TMP/help.query" || fail "damka help query differs from damka query --help"
"$DAMKA" gen --pieces 2 --out "$TMP/never" --help >/dev/null || fail "gen ... --help: status $?"
[ ! -e "$TMP/never" ] || fail "gen ... --help generated tables"

# query on small tables: the FEN echoed in the squares it was written in (Brazilian), --json's
# in numbers; more pieces than the tables hold says how many of each
if ! "$DAMKA" gen --pieces 3 --out "$TMP/t3" --quiet 2>"$TMP/err"; then
    fail "gen --pieces 3: $(cat "$TMP/err")"
fi
first() { "$DAMKA" query --tables "$TMP/t3" "$@" 2>&1 | head -n 1; }
case $(first W:Wb6:Bc7,e7) in "W:Wb6:Bc7,e7  win in 1 ply (White to move)"*) ;; *) fail "query W:Wb6:Bc7,e7: $(first W:Wb6:Bc7,e7)" ;; esac
case $(first W:W6:B7,8) in "W:W6:B7,8  win in "*) ;; *) fail "query W:W6:B7,8: $(first W:W6:B7,8)" ;; esac
case $(first B:Bh8:WKa1,Kc1) in "B:WKa1,Kc1:Bh8  "*) ;; *) fail "query B:Bh8:WKa1,Kc1: $(first B:Bh8:WKa1,Kc1)" ;; esac
case $(first --json W:Wb6:Bc7,e7) in '{"fen": "W:W9:B6,7", '*) ;; *) fail "query --json W:Wb6:Bc7,e7: $(first --json W:Wb6:Bc7,e7)" ;; esac
printf 'W:Wb6:Bc7,e7\nW:W9:B6,7\n' | "$DAMKA" query --tables "$TMP/t3" --batch >"$TMP/out"
[ "$(cut -f 1 "$TMP/out" | tr '\n' ' ')" = "W:Wb6:Bc7,e7 W:W9:B6,7 " ] || fail "query --batch echoes: $(cat "$TMP/out")"
for fen in W:Wb6,d6:Bc7,e7 W:WK1,K2,K3,K4,K5:BK28,K29,K30,K31,K32; do
    expect_bad query --tables "$TMP/t3" "$fen"
    n=$(echo "$fen" | sed 's/^[WB]://' | tr ':,' '\n\n' | grep -c .)
    grep -q "the position has $n pieces, the tables in $TMP/t3 hold at most 3" "$TMP/err" ||
        fail "query on $fen with 3-piece tables: $(cat "$TMP/err")"
done
printf 'W:Wb6,d6:Bc7,e7\n' | "$DAMKA" query --tables "$TMP/t3" --batch >"$TMP/out"
grep -q "error	not in the tables: the position has 4 pieces, the tables in $TMP/t3 hold at most 3" "$TMP/out" ||
    fail "query --batch, 4 pieces on 3-piece tables: $(cat "$TMP/out")"

# --batch: exactly one answer a line, however long the line (over 4096 bytes: an error answer)
# and whatever it holds (a NUL byte: an error answer); CRLF ends and a UTF-8 byte-order mark
# are accepted; an input that cannot be read is refused with one line
# batch_answers FILE [options]: the answers to FILE in $TMP/out, their count on stdout
batch_answers() {
    f=$1; shift
    "$DAMKA" query --tables "$TMP/t3" "$@" --batch "$f" >"$TMP/out" 2>"$TMP/err"
    wc -l <"$TMP/out" | tr -d ' '
}
{ printf '%4095s' '' | tr ' ' x; echo W:WK25:BK4; } >"$TMP/b1"
[ "$(batch_answers "$TMP/b1")" = 1 ] || fail "--batch, a line of 4105 bytes: $(cut -c 1-60 "$TMP/out")"
grep -q '	error	line 1 is too long: 4105 bytes' "$TMP/out" || fail "--batch, a line of 4105 bytes: $(cut -c 1-99 "$TMP/out")"
grep -q '^W:WK25:BK4' "$TMP/out" && fail "--batch answered the end of a long line as a line of its own"
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "W:WK25:BK4"; print ""; print "W:W6:B7,8" }' >"$TMP/b2"
[ "$(batch_answers "$TMP/b2")" = 2 ] || fail "--batch, a line of 30000 bytes: $(wc -l <"$TMP/out") answers to 2 lines"
[ "$(batch_answers "$TMP/b2" --json)" = 2 ] || fail "--batch --json, a line of 30000 bytes: $(wc -l <"$TMP/out") answers"
printf 'W:WK25:\000BK4\nW:W6:B7,8\n' >"$TMP/b3"
[ "$(batch_answers "$TMP/b3")" = 2 ] || fail "--batch, a NUL byte: $(cat "$TMP/out")"
head -n 1 "$TMP/out" | grep -qF 'W:WK25:\x00BK4	error	bad FEN for brazilian: FEN holds a NUL byte (byte 8)' ||
    fail "--batch, a NUL byte: $(head -n 1 "$TMP/out")"
# the input echoed in an error answer has its control characters escaped (3 columns, one line
# each) and is cut after 60 characters
printf 'W:W\t5:B1\033[2J\nW:W%0200d:B1x\n' 5 >"$TMP/b5"
[ "$(batch_answers "$TMP/b5")" = 2 ] && [ "$(awk -F '\t' 'NF != 3' "$TMP/out")" = "" ] &&
    head -n 1 "$TMP/out" | grep -qF 'W:W\t5:B1\x1b[2J	error	bad FEN for brazilian: FEN holds a character no FEN has' &&
    [ "$(tail -n 1 "$TMP/out" | cut -f 1)" = "W:W$(printf '%057d' 0)..." ] ||
    fail "--batch, control characters and a long line: $(cat -A "$TMP/out" | cut -c 1-200)"
printf '\357\273\277W:WK25:BK4\r\n# c\r\n\r\n%4086sW:WK25:BK4\r\n' '' >"$TMP/b4"
[ "$(batch_answers "$TMP/b4")" = 2 ] && [ "$(cut -f 1,2 "$TMP/out" | sort -u)" = "W:WK25:BK4	win in 3 plies" ] ||
    fail "--batch, a byte-order mark, CRLF, a line of 4096 bytes: $(cat "$TMP/out")"
"$DAMKA" query --tables "$TMP/t3" --batch "$TMP/b4" >/dev/null 2>&1 || fail "--batch on answerable lines: exit status $?"
expect_bad query --tables "$TMP/t3" --batch "$TMP"
grep -q "cannot read $TMP: Is a directory" "$TMP/err" || fail "--batch DIR: $(cat "$TMP/err")"
expect_bad query --tables "$TMP/t3" --batch "$TMP/absent"
"$DAMKA" query --tables "$TMP/t3" --batch <"$TMP" >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^damka: query: cannot read stdin' "$TMP/err" ||
    fail "--batch < DIR: status $rc, $(cat "$TMP/err")"
: >"$TMP/unreadable"
chmod 000 "$TMP/unreadable"
[ -r "$TMP/unreadable" ] || expect_bad query --tables "$TMP/t3" --batch "$TMP/unreadable" # (root reads it)
# a FEN error quotes the bad square, not the rest of the FEN
expect_bad query --tables "$TMP/t3" W:Wa2:Bh8
grep -q "bad square 'a2': a light square" "$TMP/err" || fail "query W:Wa2:Bh8: $(cat "$TMP/err")"

# the table directory: missing, not a directory, empty, holding no tables: one line saying so,
# exit status 2; a table file missing among present ones is named (exit status 1)
# expect_status STATUS "message part" args...: that exit status and one stderr line holding it
expect_status() {
    want=$1 part=$2; shift 2
    "$DAMKA" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ "$rc" -eq "$want" ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q '^damka: ' "$TMP/err" &&
        grep -qF -- "$part" "$TMP/err" || fail "damka $*: status $rc (expected $want), stderr: $(cat "$TMP/err")"
}
# an input quoted in an error line is cut after 60 characters; the shared option parsers name the
# command (docs/cli.md's form, damka: COMMAND: ...)
expect_status 2 "bad FEN 'W:W5$(printf ',5%.0s' $(seq 28))...' for brazilian: FEN too long: 5007 bytes" \
    moves "W:W5$(printf ',5%.0s' $(seq 2500)):B1"
[ "$(wc -c <"$TMP/err")" -lt 200 ] || fail "moves with a FEN of 5,000 bytes: $(wc -c <"$TMP/err") bytes of error"
expect_status 2 "damka: query: --counter needs a value" query --counter
for list in 1m0k-1m0k,, ,1m0k-1m0k 1m0k-1m0k,,0m1k-0m1k; do
    expect_status 2 "has an empty entry" plan --materials "$list" --ranks 1
done
expect_status 2 "damka: query: --tables needs a value" query --tables
expect_status 2 "damka: gen: --out needs a value" gen --out
expect_status 2 "damka: plan: --ranks needs a value" plan --ranks
expect_status 2 "damka: query: unknown variant 'foo' (brazilian, international, russian, 26, 20 or 25)" query --variant foo X
expect_status 2 "damka: moves: bad FEN 'W:W5,:B1' for brazilian: missing square before ':'" moves W:W5,:B1
# a man on its promotion row is that, not a FEN of another variant; the side not to move without
# pieces is refused by every command alike
expect_status 2 "bad FEN for brazilian: impossible position: a man on its own promotion row" \
    query --tables "$TMP/t3" W:WK1,K2,K3,K4,K5:B32
grep -q "variant" "$TMP/err" && fail "query W:WK1,K2,K3,K4,K5:B32 suggests another variant: $(cat "$TMP/err")"
for cmd in "query --tables $TMP/t3" moves perft; do
    # shellcheck disable=SC2086
    expect_status 2 "impossible position: Black, not to move, has no piece" $cmd W:WK5:B $([ "$cmd" = perft ] && echo 1)
    # shellcheck disable=SC2086
    expect_status 2 "impossible position: no piece on the board" $cmd W:W:B $([ "$cmd" = perft ] && echo 1)
done
"$DAMKA" query --tables "$TMP/t3" B:WK5:B >"$TMP/out" 2>"$TMP/err" && head -n 1 "$TMP/out" | grep -q '^B:WK5:B  loss in 0 plies' ||
    fail "query B:WK5:B (Black to move without pieces has lost): $(cat "$TMP/out" "$TMP/err")"
expect_status 2 "cannot read the table directory $TMP/nope: No such file or directory" query --tables "$TMP/nope" W:WK25:BK4
expect_status 2 "$README is not a directory" query --tables "$README" W:WK25:BK4
expect_status 2 "the table directory is an empty name" query --tables "" W:WK25:BK4
expect_status 2 "$TMP/empty holds no tables" query --tables "$TMP/empty" W:WK25:BK4
cp -r "$TMP/t3" "$TMP/t3m"
rm "$TMP/t3m/brazilian-1m0k-0m1k.dtw"
expect_status 1 "no table file $TMP/t3m/brazilian-1m0k-0m1k.dtw" query --tables "$TMP/t3m" W:W25:BK4
# the variant: the tables' own when the directory holds one; a FEN of the other variant says
# to pass --variant
if ! "$DAMKA" gen --variant international --pieces 2 --out "$TMP/i2" --quiet 2>"$TMP/err"; then
    fail "gen --variant international --pieces 2: $(cat "$TMP/err")"
fi
case $("$DAMKA" query --tables "$TMP/i2" W:WK42:BK22 2>&1 | head -n 1) in
"W:WK42:BK22  "*) ;; *) fail "query on international tables without --variant: $("$DAMKA" query --tables "$TMP/i2" W:WK42:BK22 2>&1)" ;;
esac
expect_status 2 "holds no brazilian tables, only international ones (pass --variant international)" \
    query --tables "$TMP/i2" --variant brazilian W:WK25:BK4
expect_status 2 "(a FEN of international: pass --variant international" query --tables "$TMP/t3" W:W31-50:B1-20
expect_status 2 "bad FEN" moves W:W31-50:B1-20

# one exit-status policy (docs/cli.md): 0 done, 1 ran and failed or no answer, 2 bad usage or
# input, refused before any work
expect_status 2 "bad FEN" query --tables "$TMP/t3" W:W33:B1
expect_status 2 "bad FEN" moves W:W33:B1
expect_status 2 "bad FEN" perft W:W33:B1 2
expect_status 2 "unknown option" info --frobnicate
expect_status 2 "unknown option" verify --frobnicate
expect_status 2 "unknown option" stats --frobnicate
expect_status 2 "unknown option" gen --frobnicate
expect_status 2 "--memory-per-rank must be a size above 0" gen --pieces 2 --memory-per-rank abc --out "$TMP/never"
expect_status 2 "--memory-per-rank must be a size above 0" gen --pieces 2 --memory-per-rank 0 --out "$TMP/never"
expect_status 2 "--memory-per-rank must be a size above 0" plan --pieces 2 --ranks 1 --memory-per-rank 0K
expect_status 2 "a rank needs at least" gen --pieces 2 --memory-per-rank 1K --out "$TMP/never"
expect_status 2 "a rank needs at least" plan --pieces 2 --ranks 1 --memory-per-rank 1K
expect_status 2 "no tables in $TMP/empty" verify "$TMP/empty"
expect_status 2 "no tables in $TMP/empty" stats "$TMP/empty"
# a directory that is not there, or a file: said alike by every command that reads or makes one
: >"$TMP/afile"
for cmd in stats verify; do
    expect_status 2 "damka: $cmd: cannot read directory $TMP/missing: No such file or directory" $cmd "$TMP/missing"
    expect_status 2 "damka: $cmd: cannot read directory $TMP/afile: Not a directory" $cmd "$TMP/afile"
done
expect_status 2 "damka: gen: --out $TMP/afile: not a directory" gen --pieces 2 --out "$TMP/afile"
expect_status 2 "damka: gen: cannot create $TMP/afile/sub: Not a directory" gen --pieces 2 --out "$TMP/afile/sub"
expect_status 1 "the position has 4 pieces" query --tables "$TMP/t3" W:Wb6,d6:Bc7,e7
expect_status 2 "--counter 31" query --tables "$TMP/t3" --counter 31 W:WK25:BK4
"$DAMKA" query --tables "$TMP/t3" --counter 30 W:WK25:BK4 >"$TMP/out" 2>"$TMP/err" ||
    fail "query --counter 30 (the rule's limit): status $?, $(cat "$TMP/err")"
[ ! -e "$TMP/never" ] || fail "a refused gen wrote $TMP/never"

# the memory floor: one computed number, the same in every refusal; that much runs, a MiB less
# is refused saying it; a budget beyond the node's memory is refused at once, nothing written
floor=$("$DAMKA" gen --pieces 2 --memory-per-rank 1M --out "$TMP/never" 2>&1 | sed -n 's/.*a rank needs at least \([0-9]*\) MiB (the least of any run), got 1 MiB$/\1/p')
if [ -z "$floor" ]; then
    fail "gen --memory-per-rank 1M does not state the floor: $("$DAMKA" gen --pieces 2 --memory-per-rank 1M --out "$TMP/never" 2>&1)"
else
    expect_status 2 "a rank needs at least $floor MiB (the least of any run), got $((floor - 1)) MiB" \
        gen --pieces 2 --memory-per-rank $((floor - 1))M --out "$TMP/never"
    "$DAMKA" gen --pieces 2 --memory-per-rank ${floor}M --out "$TMP/floor" --quiet 2>"$TMP/err" ||
        fail "gen --pieces 2 at the floor, ${floor}M: $(cat "$TMP/err")"
    grep -qF "at least $floor MiB" "$README" || fail "README does not state the floor, $floor MiB"
    # a run that needs more than the floor says how much: that runs, a MiB less does not
    for args in "--pieces 5 --ranks 1" "--pieces 5 --ranks 2" "--pieces 4 --ranks 1 --unit-positions 65536 --split-positions 4096"; do
        # shellcheck disable=SC2086
        need=$("$DAMKA" plan $args --memory-per-rank ${floor}M 2>&1 >/dev/null | sed -n 's/.*a rank needs at least \([0-9]*\) MiB (.*/\1/p')
        [ -n "$need" ] || continue
        # shellcheck disable=SC2086
        "$DAMKA" plan $args --memory-per-rank ${need}M >/dev/null 2>"$TMP/err" || fail "plan $args at ${need}M, the least it said: $(cat "$TMP/err")"
        # shellcheck disable=SC2086
        expect_status 2 "a rank needs at least $need MiB" plan $args --memory-per-rank $((need - 1))M
    done
fi
# a refusal for a split unit names the rank count (and below the floor the memory) that makes
# it fit: plan accepts the run it names; the same run on the ranks given is refused as before
for args in 6:100M 6:152M 6:300M 7:1G; do
    n=${args%:*} given=${args#*:}
    line=$("$DAMKA" plan --pieces "$n" --ranks 2 --memory-per-rank "$given" 2>&1 >/dev/null)
    ranks=$(echo "$line" | sed -n 's/.*; or run on at least \([0-9]*\) ranks.*/\1/p')
    mem=$(echo "$line" | sed -n 's/.*; or run on at least [0-9]* ranks with \([0-9]*\) MiB a rank).*/\1M/p')
    if [ -z "$ranks" ]; then
        fail "plan --pieces $n --ranks 2 --memory-per-rank $given: no rank count in its refusal: $line"
    else
        "$DAMKA" plan --pieces "$n" --ranks "$ranks" --memory-per-rank "${mem:-$given}" >/dev/null 2>"$TMP/err" ||
            fail "plan --pieces $n --memory-per-rank $given named $ranks ranks${mem:+ with $mem}, which plan refuses: $(cat "$TMP/err")"
    fi
done
expect_status 2 "got 1 KiB" plan --pieces 2 --ranks 1 --memory-per-rank 1K
expect_status 2 "a rank may hold at most its node's memory" gen --pieces 2 --memory-per-rank 100T --out "$TMP/never"
[ ! -e "$TMP/never" ] || fail "a refused gen wrote $TMP/never"

# both variants in one directory: one manifest lists every table of both, generating the second
# loses none of the first's entries; both verify; stats --json prints one document; verify
# names a manifest that does not list the tables
cp -r "$TMP/t3" "$TMP/mixed"
"$DAMKA" gen --variant international --pieces 3 --out "$TMP/mixed" --quiet 2>"$TMP/err" ||
    fail "gen international into a directory of brazilian tables: $(cat "$TMP/err")"
"$DAMKA" verify --quiet "$TMP/mixed" 2>"$TMP/err" || fail "verify of both variants: $(cat "$TMP/err")"
for v in brazilian international; do
    "$DAMKA" verify --quiet --variant $v "$TMP/mixed" 2>"$TMP/err" || fail "verify --variant $v: $(cat "$TMP/err")"
done
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys,glob,os
d = sys.argv[1]
m = json.load(open(d + "/manifest.json"))
listed = sorted(v["variant"] + "-" + t["material"] for v in m["variants"] for t in v["tables"])
stats = sorted(os.path.basename(p)[:-6] for p in glob.glob(d + "/*.stats"))
assert m["manifest"] == "damka-manifest-2" and [v["variant"] for v in m["variants"]] == ["brazilian", "international"], m.keys()
assert listed == stats and len(listed) == 32, (listed, stats)' "$TMP/mixed" || fail "the manifest of both variants"
    "$DAMKA" stats --json "$TMP/mixed" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["variants"]) == 2' ||
        fail "stats --json on both variants is not one JSON document of both"
    "$DAMKA" stats --json --variant international "$TMP/mixed" |
        python3 -c 'import json,sys; d=json.load(sys.stdin); assert [v["variant"] for v in d["variants"]] == ["international"]' ||
        fail "stats --json --variant international"
fi
"$DAMKA" stats --json "$TMP/mixed" | cmp -s - "$TMP/mixed/manifest.json" || fail "stats --json differs from manifest.json"
# the manifest of one variant only (as gen wrote it before): verify names it, gen writes it again
"$DAMKA" stats --json --variant brazilian "$TMP/mixed" >"$TMP/mixed/manifest.json"
expect_status 1 "manifest.json does not list the tables as their .stats files do" verify --quiet "$TMP/mixed"
"$DAMKA" gen --variant international --pieces 2 --out "$TMP/mixed" --quiet 2>"$TMP/err" || fail "gen rewriting the manifest: $(cat "$TMP/err")"
"$DAMKA" verify --quiet "$TMP/mixed" 2>"$TMP/err" || fail "verify after the manifest was written again: $(cat "$TMP/err")"

# verify --journal: a second run checks no table again; a journal cut where a kill leaves it
# (it is replaced whole after each table) goes on from there; a table whose files are not the
# journal's, or damaged, is checked again; another manifest starts the journal again; a file
# that is no journal is refused and left alone; a set without manifest.json is refused; a journal
# that cannot be written fails the run, every table checked all the same
J=$TMP/journal
"$DAMKA" verify --journal "$J" "$TMP/mixed" >"$TMP/out" 2>"$TMP/err" || fail "verify --journal: $(cat "$TMP/err")"
[ "$(tail -n 1 "$TMP/out")" = "32 tables, 0 failed (0 passed before, by the journal)" ] || fail "verify --journal: $(tail -n 1 "$TMP/out")"
[ "$(wc -l <"$J")" -eq 33 ] && head -n 1 "$J" | grep -q '^damka-verify-journal-1 manifest ' ||
    fail "the journal of 32 tables: $(head -n 3 "$J")"
expect_last "32 tables, 0 failed (32 passed before, by the journal)" verify --journal "$J" "$TMP/mixed"
[ "$(grep -c 'ok (passed before: journal)' "$TMP/out")" -eq 0 ] || fail "the first run said tables passed before"
head -n 6 "$J" >"$TMP/cut" && mv "$TMP/cut" "$J"
expect_last "32 tables, 0 failed (5 passed before, by the journal)" verify --journal "$J" "$TMP/mixed"
sed -i '2s/ \([0-9a-f]\{8\}\)$/ 00000000/' "$J"
expect_last "32 tables, 0 failed (31 passed before, by the journal)" verify --journal "$J" "$TMP/mixed"
cp "$TMP/mixed/brazilian-1m1k-1m0k.dtw" "$TMP/dtw.good"
printf 'x' | dd of="$TMP/mixed/brazilian-1m1k-1m0k.dtw" bs=1 seek=100 conv=notrunc 2>/dev/null
"$DAMKA" verify --journal "$J" "$TMP/mixed" >"$TMP/out" 2>"$TMP/err" && fail "verify --journal passed a damaged table"
grep -q "^damka: verify: .*brazilian-1m1k-1m0k.dtw" "$TMP/err" || fail "a damaged table under the journal: $(cat "$TMP/err")"
cp "$TMP/dtw.good" "$TMP/mixed/brazilian-1m1k-1m0k.dtw"
cp "$TMP/mixed/manifest.json" "$TMP/manifest.good"
printf ' ' >>"$TMP/mixed/manifest.json"
"$DAMKA" verify --journal "$J" "$TMP/mixed" >"$TMP/out" 2>"$TMP/err"
grep -q "^note: $J was the journal of another state of $TMP/mixed" "$TMP/out" && grep -q '(0 passed before' "$TMP/out" ||
    fail "a journal of another manifest: $(head -n 1 "$TMP/out"); $(tail -n 1 "$TMP/out")"
cp "$TMP/manifest.good" "$TMP/mixed/manifest.json"
expect_status 2 "$TMP/mixed/manifest.json is not a journal of damka verify" verify --journal "$TMP/mixed/manifest.json" "$TMP/mixed"
cmp -s "$TMP/manifest.good" "$TMP/mixed/manifest.json" || fail "verify --journal changed a file that is no journal"
expect_status 2 "--journal $TMP/t3: not a file" verify --journal "$TMP/t3" "$TMP/mixed"
expect_status 2 "--journal needs a file name" verify --journal "" "$TMP/mixed"
mkdir "$TMP/unfinished" && cp "$TMP/t3"/brazilian-* "$TMP/unfinished"
expect_status 2 "--journal needs $TMP/unfinished/manifest.json" verify --journal "$J" "$TMP/unfinished"
expect_status 1 "journal not written: cannot create $TMP/nodir/j" verify --quiet --journal "$TMP/nodir/j" "$TMP/mixed"
"$DAMKA" verify --journal "$TMP/nodir/j" "$TMP/mixed" 2>/dev/null | tail -n 1 >"$TMP/out"
[ "$(cat "$TMP/out")" = "32 tables, 0 failed (0 passed before, by the journal; the journal could not be written)" ] ||
    fail "a journal that cannot be written: $(cat "$TMP/out")"

# make figures draws into the build directory unless FIGURES says otherwise, never over the
# committed docs/figures by default
ROOT=$(dirname "$0")/..
figs=$(make -s -n -C "$ROOT" figures TABLES="$TMP/t3" BUILD="$(dirname "$ABS")" 2>/dev/null | grep 'plot-stats')
case $figs in *"plot-stats $TMP/t3 $(dirname "$ABS")/figures") ;; *) fail "make figures: '$figs'" ;; esac

# smaller things: one version; moves without a legal move; "1 leaf"; --per-side as gen's
version=$(sed -n 's/^#define DAMKA_VERSION_MAJOR \([0-9]*\)$/\1/p' "$(dirname "$0")/../query/damka.h").$(sed -n 's/^#define DAMKA_VERSION_MINOR \([0-9]*\)$/\1/p' "$(dirname "$0")/../query/damka.h")
[ "$("$DAMKA" --version)" = "damka $version" ] || fail "damka --version: '$("$DAMKA" --version)', expected 'damka $version'"
for c in gen query serve verify; do
    [ "$("$DAMKA" $c --version)" = "damka $version" ] || fail "damka $c --version: '$("$DAMKA" $c --version 2>&1)'"
done
[ "$("$DAMKA" moves W:Wa1:Bb2,c3)" = "no legal move: White, to move, has lost" ] || fail "moves without a legal move: '$("$DAMKA" moves W:Wa1:Bb2,c3)'"
"$DAMKA" perft 0 2>&1 >/dev/null | grep -q ': 1 leaf in ' || fail "perft 0: $("$DAMKA" perft 0 2>&1 >/dev/null)"
expect_status 2 "--per-side must be a whole number from 1 to 12" info --pieces 3 --per-side 13
expect_status 2 "--per-side must be a whole number from 1 to 12" gen --pieces 3 --per-side 13 --out "$TMP/never"
"$DAMKA" info --variant international --pieces 3 --per-side 13 >/dev/null || fail "info --per-side 13 on 10x10: status $?"

# beyond 8 pieces: tables up to 10 pieces on 8x8 and 9 on 10x10; info at the bound counts in 64
# bits; gen and plan at 9 and 10 pieces refused by the budget on too few ranks (a rank's share
# of the largest split unit: no finishing task, a join included, holds more than a part), nothing
# written; a unit bound that would make too large a graph refused
"$DAMKA" info --variant international --pieces 9 --json >"$TMP/out" 2>"$TMP/err" ||
    fail "info --variant international --pieces 9: status $?, $(cat "$TMP/err")"
grep -q '{"pieces": 9, "materials": 200, "positions": 817876055251900}' "$TMP/out" &&
    grep -q '"largest_material": "0m4k-0m5k"' "$TMP/out" ||
    fail "info --variant international --pieces 9: $(grep -A3 '"totals"' "$TMP/out" | head -c 300)"
expect_status 2 "--pieces must be a whole number from 2 to 10 (brazilian)" gen --pieces 11 --out "$TMP/never"
expect_status 2 "--pieces must be a whole number from 2 to 9 (international)" plan --variant international --pieces 10 --ranks 2
expect_status 2 "--pieces needs a whole number from 2 to 10 (brazilian)" info --pieces 11
expect_status 2 "a rank's share of the largest split unit, 6845104128 positions on 4 ranks" plan --pieces 10 --ranks 4 --memory-per-rank 16G
expect_status 2 "a rank's share of the largest split unit, 27095140800 positions on 1 rank" gen --pieces 10 --memory-per-rank 16G --out "$TMP/never"
expect_status 2 "a rank's share of the largest split unit, 631369292400 positions on 1 rank; or run on at least 2048 ranks" gen --variant international --pieces 9 --memory-per-rank 16G --out "$TMP/never"
expect_status 2 "into more than 16777216 work units" info --pieces 10 --unit-positions 1
expect_status 2 "into more than 16777216 work units" plan --pieces 9 --ranks 2 --unit-positions 1000
expect_status 1 "the position has 11 pieces, the tables in $TMP/t3 hold at most 3" query --tables "$TMP/t3" W:W21-26:B1-5
[ ! -e "$TMP/never" ] || fail "a refused gen of 10 pieces wrote $TMP/never"

# garbage never crashes
for arg in "W:" "B:W" "W:W1-" "W:WK" "W:W-" "W:W,,,:B" "W:W1-99:B" "B:B:W" "W:W00:B1" \
    "W:W31-50:B1-20:W1" "$(printf 'W:W%0300d:B1' 1)"; do
    "$DAMKA" moves --variant international "$arg" >/dev/null 2>&1
    rc=$?
    [ "$rc" -lt 128 ] || fail "moves '$arg' crashed ($rc)"
done

if [ "$fails" -ne 0 ]; then
    echo "cli.sh: $fails failure(s)"
    exit 1
fi
echo "cli.sh: all passed"
