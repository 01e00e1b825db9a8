#!/bin/sh
# check_serial.sh - build every sample serially with a plain C compiler (the
# "#pragma xmp" directives are ignored) and check, for each pair in MANIFEST, that
#   1. the XMP program prints exactly what its serial original prints, and
#   2. its C code equals the serial original once comments and "#pragma xmp"
#      lines are removed (an XMP sample is its serial original plus directives).
# Prints one line per pair: OK, DIFF (output) or DIFF (code); exit status 1 on any DIFF.
# Usage: sh samples/check_serial.sh        (CC defaults to cc)

cd "$(dirname "$0")" || exit 2
CC=${CC:-cc}
CFLAGS="-O2 -Wall -Wno-unknown-pragmas"
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# compile and run one file; its output goes to stdout
run() {
    exe="$tmp/$(echo "$1" | tr '/.' '__')"
    $CC $CFLAGS "$1" -lm -o "$exe" || return 1
    "$exe" < /dev/null
}

# the C code without comments, "#pragma xmp" lines and white space
code() {
    sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$1" |
        $CC -fpreprocessed -dD -E -P -x c - 2>/dev/null |
        grep -v '^[[:space:]]*#[[:space:]]*pragma[[:space:]][[:space:]]*xmp' |
        tr -d ' \t\n'
}

fail=0
while read -r xmp serial counts; do
    [ -n "$xmp" ] || continue
    # array sections (a[0:n], c[:][:]) are not C: such a sample is compared with its
    # serial program by tests/test_samples.py only
    if grep -v '^[[:space:]]*#' "$xmp" | grep -Eq '\[[^]?]*:[^]]*\]'; then
        echo "SKIP  $xmp: array sections, plain C cannot build it"; continue
    fi
    if ! run "$serial" > "$tmp/serial.out" || ! run "$xmp" > "$tmp/xmp.out"; then
        echo "DIFF (build/run failed)  $xmp vs $serial"; fail=1; continue
    fi
    if ! cmp -s "$tmp/serial.out" "$tmp/xmp.out"; then
        echo "DIFF (output)  $xmp vs $serial"
        diff "$tmp/serial.out" "$tmp/xmp.out" | sed 's/^/    /'
        fail=1
    elif [ "$(code "$xmp")" != "$(code "$serial")" ]; then
        echo "DIFF (code)    $xmp vs $serial"; fail=1
    else
        echo "OK    $xmp vs $serial  (nodes: $counts)"
    fi
done < MANIFEST
exit $fail
