# csv.awk -- the book's one reader of its measurement CSVs (figures/data/<gpu>/
# *.csv: '#' provenance lines, a column line, then rows; no quoted commas).
# A library: nw2md.awk and csvget.sh load it with -f.  POSIX awk.
#   csv_load(path)   1 when the file has a column line; its rows in
#                    csvcell[path, row, col], csvcol[path, name] = col,
#                    csvrows[path], and the provenance in csvprov[path]
#   csv_find(path, keycol, key, col)   the row whose keycol is key, or 0;
#                    csv_status says why not: "col" (no such column), "row"
function csv_load(path,    line, n, k, i, hdr, f) {
    if (path in csvrows) return 1
    n = 0; hdr = 0; csvprov[path] = ""
    while ((getline line < path) > 0) {
        if (line ~ /^#/) { sub(/^# */, "", line); csvprov[path] = csvprov[path] (csvprov[path] == "" ? "" : "; ") line; continue }
        if (line ~ /^[ \t]*$/) continue
        k = split(line, f, ",")
        if (!hdr) { hdr = 1; for (i = 1; i <= k; i++) csvcol[path, f[i]] = i; continue }
        n++; for (i = 1; i <= k; i++) csvcell[path, n, i] = f[i]
    }
    close(path)
    if (!hdr) return 0
    csvrows[path] = n
    return 1
}
function csv_find(path, keycol, key, col,    r, kc) {
    kc = csvcol[path, keycol]; csv_status = ""
    if (!kc || !csvcol[path, col]) { csv_status = "col"; return 0 }
    for (r = 1; r <= csvrows[path]; r++) if (csvcell[path, r, kc] == key) return r
    csv_status = "row"; return 0
}
