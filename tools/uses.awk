# uses.awk -- after pandoc: typeset chunk uses inside highlighted code.
# nw2md.awk writes a use as the comment /*<name N>*/ (angle brackets are
# U+27E8/9), which the highlighter leaves whole as \CommentTok{...}; this
# turns each into \nwuse{name}{N}: the name in italics, N a hyperlink,
# noweb's quoted code in the name, [[x]], as \nwcode{x} (as in the
# chunk's header).
{
    out = ""; s = $0
    opn = "\\CommentTok{/*\342\237\250"; cls = "\342\237\251*/}"
    while ((i = index(s, opn)) > 0) {
        rest = substr(s, i + length(opn))
        j = index(rest, cls)
        if (!j) break
        body = substr(rest, 1, j - 1)              # "name N"
        n = body; sub(/.* /, "", n); name = body; sub(/ [0-9]+$/, "", name)
        while (match(name, /\[\[[^]]*\]\]/)) name = substr(name, 1, RSTART - 1) "\\nwcode{" substr(name, RSTART + 2, RLENGTH - 4) "}" substr(name, RSTART + RLENGTH)
        out = out substr(s, 1, i - 1) "\\nwuse{" name "}{" n "}"
        s = substr(rest, j + length(cls))
    }
    print out s
}
