#!/bin/sh
# setting.sh FILE VALUE -- keep VALUE in FILE, rewriting FILE only when the
# value changed, so that a make target depending on FILE is rebuilt exactly
# when a setting it uses (compiler flags, DRAFT, GPU) changes.
mkdir -p "$(dirname "$1")"
[ -f "$1" ] && [ "$(cat "$1")" = "$2" ] && exit 0
printf '%s\n' "$2" > "$1"
