#!/bin/sh
# csvget.sh FILE KEYCOL=KEY COLUMN -- one value from a measurement CSV, read
# by tools/csv.awk; nothing (and exit 1) when the file, row or column is missing.
awk -f "$(dirname "$0")/csv.awk" -f /dev/stdin -v path="$1" -v kv="$2" -v col="$3" <<'EOF_AWK'
BEGIN {
    split(kv, a, "="); if (!csv_load(path)) exit 1
    r = csv_find(path, a[1], a[2], col); if (!r) exit 1
    print csvcell[path, r, csvcol[path, col]]
}
EOF_AWK
