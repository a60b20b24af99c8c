#!/bin/sh
# libdamka as an engine author gets it: `make install PREFIX=<temp>`, then tests/example/probe.c
# built with `pkg-config --cflags --libs damka` against the shared library (run with
# LD_LIBRARY_PATH) and the static one, and run on a few positions: its output must match
# `damka query`. Checks the installed files and that the shared library exports only damka_
# names and does not need MPI.
# Usage: tests/install.sh path/to/damka TABLE_DIR   (Brazilian tables up to 4 pieces)
# Environment: MAKE, CC, CFLAGS (the build's; the sanitizer build passes its flags).
set -u
DAMKA=${1:?usage: tests/install.sh path/to/damka TABLE_DIR}
TABLES=${2:?usage: tests/install.sh path/to/damka TABLE_DIR}
BUILD=$(dirname "$DAMKA")
MAKE=${MAKE:-make}
CC=${CC:-cc}
CFLAGS=${CFLAGS:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

PREFIX=$TMP/prefix
# shellcheck disable=SC2086
if ! $MAKE --no-print-directory -s install BUILD="$BUILD" PREFIX="$PREFIX" >"$TMP/make.out" 2>&1; then
    echo "FAIL: make install: $(tail -n 5 "$TMP/make.out")"
    exit 1
fi
for f in include/damka.h lib/libdamka.a lib/libdamka.so lib/libdamka.so.0 lib/pkgconfig/damka.pc; do
    [ -e "$PREFIX/$f" ] || fail "make install did not install $f"
done
soname=$(objdump -p "$PREFIX/lib/libdamka.so" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = libdamka.so.0 ] || fail "libdamka.so has soname '$soname', expected libdamka.so.0"
others=$(nm -D --defined-only "$PREFIX/lib/libdamka.so" | awk '$2 ~ /^[TDBRVW]$/ && $3 !~ /^damka_/ && $3 !~ /^_/ { print $3 }')
[ -z "$others" ] || fail "libdamka.so exports names without the damka_ prefix: $(echo "$others" | head -n 5 | tr '\n' ' ')"
nm -D --defined-only "$PREFIX/lib/libdamka.so" | grep -q ' T damka_probe_wdl$' || fail "libdamka.so does not export damka_probe_wdl"
if ldd "$PREFIX/lib/libdamka.so" | grep -qi mpi; then fail "libdamka.so links MPI"; fi
if nm "$PREFIX/lib/libdamka.a" 2>/dev/null | grep -q ' U MPI_'; then fail "libdamka.a needs MPI"; fi

export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
cflags=$(pkg-config --cflags damka) || fail "pkg-config --cflags damka"
libs=$(pkg-config --libs damka) || fail "pkg-config --libs damka"
# one version (query/damka.h): damka --version, damka.pc and the shared library's file name
version=$("$DAMKA" --version | sed 's/^damka //')
[ "$(pkg-config --modversion damka)" = "$version" ] || fail "damka.pc says $(pkg-config --modversion damka), damka --version $version"
[ -e "$PREFIX/lib/libdamka.so.$version" ] || fail "no $PREFIX/lib/libdamka.so.$version (damka --version: $version)"
slibs=$(pkg-config --static --libs damka | sed 's/-ldamka\b/-l:libdamka.a/') || fail "pkg-config --static --libs damka"
SRC=$(dirname "$0")/example/probe.c
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror $CFLAGS $cflags "$SRC" -o "$TMP/probe-shared" $libs 2>"$TMP/cc.err" ||
    fail "building the example against the shared library: $(head -n 5 "$TMP/cc.err")"
# shellcheck disable=SC2086
$CC -std=c11 -Wall -Wextra -Werror $CFLAGS $cflags "$SRC" -o "$TMP/probe-static" $slibs 2>"$TMP/cc.err" ||
    fail "building the example against the static library: $(head -n 5 "$TMP/cc.err")"
if [ -x "$TMP/probe-static" ] && ldd "$TMP/probe-static" | grep -q libdamka; then
    fail "the static example needs libdamka.so"
fi
if [ -x "$TMP/probe-shared" ] && ! LD_LIBRARY_PATH="$PREFIX/lib" ldd "$TMP/probe-shared" | grep -q "libdamka.so.0 => $PREFIX"; then
    fail "the shared example does not load $PREFIX/lib/libdamka.so.0"
fi

n=0
while read -r fen wdl; do
    # the example prints the numeric FEN libdamka writes, damka query's text echoes the squares
    # it was given: compare with damka query of the numeric form (its --json fen)
    num=$("$DAMKA" query --tables "$TABLES" --json "$fen" 2>"$TMP/err" | sed -n 's/^{"fen": "\([^"]*\)".*/\1/p')
    "$DAMKA" query --tables "$TABLES" "$num" >"$TMP/want" 2>>"$TMP/err" || { fail "damka query $fen: $(cat "$TMP/err")"; continue; }
    for kind in shared static; do
        [ -x "$TMP/probe-$kind" ] || continue
        LD_LIBRARY_PATH="$PREFIX/lib" "$TMP/probe-$kind" "$TABLES" brazilian "$fen" >"$TMP/got" 2>"$TMP/err" ||
            { fail "example ($kind) on $fen: $(cat "$TMP/err")"; continue; }
        head -n 1 "$TMP/got" | grep -q "^wdl: $wdl " || fail "example ($kind) on $fen: '$(head -n 1 "$TMP/got")', expected wdl $wdl"
        tail -n +2 "$TMP/got" | diff "$TMP/want" - >"$TMP/diff" ||
            fail "example ($kind) on $fen differs from damka query: $(head -n 6 "$TMP/diff" | tr '\n' '|')"
    done
    n=$((n + 1))
done <<'EOF2'
W:WK25,K26,K27:BK29 win
W:Wb6:Bc7,e7 win
B:W18:BK1 win
W:WK1:BK32 draw
B:WK29:BK4,K32 win
W:W21:B10,14 loss
B:W22,K6:B13 loss
W:W10,11:B5,K19 draw
EOF2
# an error reaches the user as one line and a non-zero status
if LD_LIBRARY_PATH="$PREFIX/lib" "$TMP/probe-shared" "$TABLES" brazilian "W:W21-32:B1-12" >/dev/null 2>"$TMP/err"; then
    fail "example on a 24-piece position succeeded"
fi
grep -q "^probe: not in the tables" "$TMP/err" || fail "example on a 24-piece position: $(cat "$TMP/err")"
# README's C example, as it stands there, in a main() over the tables: it prints DAMKA_WIN (1),
# and a directory that is not there gives its message and status 1
README=$(dirname "$0")/../README.md
{
    printf '#include <stdio.h>\n#include <damka.h>\nint main(void)\n{\n'
    awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' "$README"
    printf '    return 0;\n}\n'
} >"$TMP/readme.c"
# shellcheck disable=SC2086
if $CC -std=c11 -Wall -Wextra -Werror $CFLAGS $cflags "$TMP/readme.c" -o "$TMP/readme" $libs 2>"$TMP/cc.err"; then
    ln -s "$(cd "$TABLES" && pwd)" "$TMP/tables"
    out=$(cd "$TMP" && LD_LIBRARY_PATH="$PREFIX/lib" ./readme 2>&1)
    [ "$out" = 1 ] || fail "README's C example printed '$out', expected 1 (DAMKA_WIN)"
    rm "$TMP/tables"
    out=$(cd "$TMP" && LD_LIBRARY_PATH="$PREFIX/lib" ./readme 2>&1)
    [ $? -eq 1 ] && echo "$out" | grep -q "^no such table directory: " ||
        fail "README's C example without tables: '$out'"
else
    fail "building README's C example: $(head -n 5 "$TMP/cc.err")"
fi
echo "   installed, built shared and static with pkg-config, $n positions agree with damka query; README's C example runs"
[ "$fails" -eq 0 ] || { echo "install.sh: $fails failure(s)"; exit 1; }
