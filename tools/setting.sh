#!/bin/sh
# setting.sh FILE VALUE [dry] -- keep VALUE in FILE, rewriting FILE only when
# the value changed, so that a make target depending on FILE is rebuilt
# exactly when a setting it uses (compiler flags, DRAFT, GPU) changes.  With
# "dry" (make -n) the file is left alone and the script prints "changed"
# when the value differs, for the Makefile to show the rebuild it implies.
mkdir -p "$(dirname "$1")"
[ -f "$1" ] && [ "$(cat "$1")" = "$2" ] && exit 0
[ "${3:-}" = dry ] && { echo changed; exit 0; }
printf '%s\n' "$2" > "$1"
