#!/bin/sh
# chapters.sh [KEY] -- print the list under KEY in book.yaml (default: chapters),
# or, for a key under build:, its value.  The single reader of book.yaml.
key=${1:-chapters}
awk -v key="$key" '
  $0 ~ "^" key ":[ \t]*$"        { inlist = 1; next }
  inlist && /^  - /              { sub(/^  - */, ""); print; next }
  inlist && /^[^ ]/              { inlist = 0 }
  /^build:/                      { inbuild = 1; next }
  inbuild && $0 ~ "^  " key ":"  { sub("^  " key ":[ \t]*", ""); print; exit }
  inbuild && /^[^ ]/             { inbuild = 0 }
' book.yaml
