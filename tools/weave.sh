#!/bin/bash
# weave.sh [-v VAR=VALUE]... FILE.nw... -- the book's one weave: noweb's
# weave of the files (tools/noweb.sh), the {{csv}} directives expanded from
# the data (tools/csv.awk), and the chunks written as pandoc markdown
# (tools/nw2md.awk), on stdout.  The -v settings go to the awk: format=html
# for the web edition, draft=1, gpu=SLUG (figures/data/SLUG/), testedby=
# build/tested-by.tsv (the "Tested by" notes).  The GPU's device facts
# ({{csvmul}} factors such as sms) come from book.yaml's device-facts.
set -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
vars=()
while [ "${1:-}" = -v ]; do vars+=(-v "$2"); shift 2; done
[ $# -gt 0 ] || { echo "usage: weave.sh [-v VAR=VALUE]... FILE.nw..." >&2; exit 2; }
facts=$("$top/tools/chapters.sh" device-facts)
"$top/tools/noweb.sh" weave "$@" | gawk -f "$top/tools/csv.awk" -f "$top/tools/nw2md.awk" -v facts="$facts" "${vars[@]}"
