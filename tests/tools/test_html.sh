#!/bin/bash
# test_html.sh -- the web edition in a real browser, in cmocka's output
# format for run-tests.sh.  Builds the site (make html) and checks that it
# ships the PDF (when built) and the source archive, the build's own bytes.
# Then headless chromium opens tests/tools/html-check.html, whose own script
# loads every page in a frame 1280 and 390 px wide and checks that every
# internal link and anchor resolves, headings have anchors, previous / next
# follow the book's order, every image and SVG figure loads, MathML is laid
# out, wrong-on-purpose chunks are marked, a search for a known identifier
# offers its chunk, a search for a word that only the prose has
# (HTML_TEST_WORD) finds a section whose text has it, every page has the
# chapter sidebar (a column at 1280 px, a menu the bar's button opens at
# 390 px) and links to the PDF and the source archive, the glossary's
# Chinese is marked lang="zh-Hans", tables are numbered as in the PDF
# ("Table 5.1"; with build/book.aux, the same numbers as the PDF's),
# names in math (\mathrm, \operatorname, \text) are upright, a table
# wider than the column takes the room on its right at 1280 px before it
# scrolls, and no page scrolls sideways.  Last,
# screenshots of two pages at both widths go to build/html-shots/ (build
# artifacts, to look at).
# Before the browser, html_chunk_markup reads the pages and the PDF's
# LaTeX for chunk names with [[...]] left as brackets and for footers that
# list more than 6 uses.
# Without the tools the site needs, or without chromium (which make html
# installs only when run as root), every test is reported as skipped, with
# the reason.
cd "$(dirname "$0")/../.." || exit 1
checks="pages_load links_resolve headings_have_anchors prev_next images_load mathml_renders
        wrong_on_purpose_marked search_finds_identifier search_finds_text sidebar downloads_linked glossary_lang
        table_numbers math_upright wide_tables no_horizontal_scroll_1280 no_horizontal_scroll_390"
shots=build/html-shots
ident=${HTML_TEST_IDENT:-warp_sum}      # an identifier the index must hold
word=${HTML_TEST_WORD:-poisoned}     # a word of the prose that no title, chunk name or identifier has
browser=$(command -v chromium || command -v chromium-browser)

skip_all() {   # skip_all REASON [TESTS]: every test (or TESTS) skipped
  local t
  for t in ${2:-html_builds ships_pdf_and_source chunk_markup $checks screenshots checker_catches_faults}; do
    echo "[ RUN      ] html_$t"; echo "skipped: $1"; echo "[  SKIPPED ] html_$t"
  done | sed 's/html_html_/html_/'
  exit 0
}
m=""; for c in make gawk pandoc xelatex pdftocairo; do command -v $c >/dev/null 2>&1 || m="$m $c"; done
[ -z "$m" ] || skip_all "the web edition needs$m"
# make html installs chromium (tools/deps.list, target html) when run as
# root; anyone else without it gets every test skipped.
nochromium="chromium not installed (apt-get install chromium, or make deps; it is in tools/deps.list for make html)"
[ -n "$browser" ] || [ "$(id -u)" = 0 ] || skip_all "$nochromium"

echo "[ RUN      ] html_builds"
if out=$(make -s html 2>&1); then
  echo "$out" | tail -2; echo "[       OK ] html_builds"
else
  echo "$out" | tail -20; echo "[  FAILED  ] html_builds"
  for t in ships_pdf_and_source chunk_markup $checks screenshots checker_catches_faults; do echo "[ RUN      ] html_$t"; echo "the site did not build"; echo "[  FAILED  ] html_$t"; done
  exit 1
fi
# The chapters after \appendix are lettered, as in the PDF: their pages'
# headings carry A, A.1, ..., never a chapter number.
echo "[ RUN      ] html_appendices_lettered"
apps=$(awk '/^<!-- nwfile chapters\// { f = $3; sub(/.*\//, "", f); sub(/\.nw$/, "", f); if (a) print f ".html" }
            /^<!-- appendix -->$/ && !a { a = 1; print f ".html" }' build/html-src/body.html)
if [ -z "$apps" ]; then echo "skipped: the book has no appendix"; echo "[  SKIPPED ] html_appendices_lettered"
elif bad=$(cd build/html && grep -o '<h[1-6][^>]*data-number="[0-9][^"]*"' $apps | head -3) && [ -n "$bad" ]; then
  echo "numbered, not lettered: $bad"; echo "[  FAILED  ] html_appendices_lettered"
elif ! (cd build/html && grep -q '<h1[^>]*data-number="A"' $apps); then
  echo "no heading lettered A in $apps"; echo "[  FAILED  ] html_appendices_lettered"
else echo "[       OK ] html_appendices_lettered"; fi
# What the site ships beside its pages (make html: the PDF when it is
# built, the source archive where make dist can make one), the same bytes
# as the build's; the browser then checks that every page links to them.
echo "[ RUN      ] html_ships_pdf_and_source"
pdf=""; src=""; st=0
if [ -f build/html/book.pdf ]; then pdf=book.pdf; cmp -s build/html/book.pdf build/book.pdf || { echo "build/html/book.pdf is not build/book.pdf"; st=1; }
elif [ -f build/book.pdf ]; then echo "build/book.pdf is built but the site does not ship it"; st=1
else echo "no build/book.pdf: the site ships no PDF (make pdf, then make html, ships it)"; fi
a=build/dist/cuda-c-verified-src.tar.gz
if [ -f "build/html/${a##*/}" ]; then src=${a##*/}; cmp -s "build/html/$src" "$a" || { echo "build/html/$src is not $a"; st=1; }
elif [ -e .git ] || [ -f .book-files ]; then echo "the site does not ship the source archive ($a)"; st=1
else echo "this tree can make no source archive (no git checkout, no unpacked archive)"; fi
[ $st = 0 ] && echo "[       OK ] html_ships_pdf_and_source" || echo "[  FAILED  ] html_ships_pdf_and_source"
# Chunk markup, in the pages and in the PDF's LaTeX (build/book.tex, when
# built): noweb's quoted code in a chunk's name, [[x]], is shown as code,
# never as brackets (in a header, a use in code, the index of chunks); a
# footer's list of uses holds at most 6 chunks (a longer one shows its
# first 4, the count of the others and a link to the index).
# markup_faults FILE... prints what is wrong; the checker's own test below
# feeds it faults.
markup_faults() {
  LC_ALL=C awk '
    function bad(what) { printf "%s:%d: %s\n", FILENAME, FNR, what; n++ }
    function names(s) {     # the chunk names of a line, code blocks left out
      gsub(/<pre.*<\/pre>/, "", s)
      return s ~ /(class="nw(head|name)">|<li id="nwch|\\nw(begin|chunkentry|use)\{)[^\n]*\[\[[^]]*\]\]/
    }
    /class="nw(head|name)"|<li id="nwch|\\nw(begin|chunkentry|use)\{/ { if (names($0)) bad("[[...]] in a chunk name") }
    /<div class="nwfoot">|^\\nwend\{/ {
      s = $0
      while ((i = index(s, "sed in "))) {
        s = substr(s, i + 7); u = s
        a = index(u, ")"); b = index(u, ". ")
        if (a && (!b || a < b)) u = substr(u, 1, a); else if (b) u = substr(u, 1, b)
        k = gsub(/#nw[0-9]+"|\\hyperlink\{nw[0-9]+\}/, "&", u)
        if (k > 6) bad("a footer lists " k " uses")
      }
    }
    END { exit n > 0 }' "$@" | head -5
}
echo "[ RUN      ] html_chunk_markup"
tex=""; [ -f build/book.tex ] && tex=build/book.tex
if bad=$(markup_faults build/html/*.html $tex) && [ -z "$bad" ]; then echo "[       OK ] html_chunk_markup"
else echo "$bad"; echo "[  FAILED  ] html_chunk_markup"; fi

browser=$(command -v chromium || command -v chromium-browser)
[ -n "$browser" ] || skip_all "$nochromium" "$checks screenshots checker_catches_faults"

pages="index.html,$(for c in $(tools/chapters.sh); do printf '%s.html,' "$c"; done)book-index.html"
wrong=0; grep -q '^<<Wrong on purpose' chapters/*.nw && wrong=1
mkdir -p build/html-test "$shots"
cp tests/tools/html-check.html build/html-test/check.html
# chromium wants a writable home and profile; keep them out of the way
export HOME=${TMPDIR:-/tmp}/test_html.$$; mkdir -p "$HOME"; trap 'rm -rf "$HOME"' EXIT
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --user-data-dir="$HOME/profile"
       --allow-file-access-from-files)
start=$(date +%s)
timeout 300 "$browser" "${flags[@]}" --virtual-time-budget=300000 --dump-dom \
  "file://$PWD/build/html-test/check.html?site=../html/&pages=$pages&ident=$ident&wrong=$wrong&word=$word&pdf=$pdf&src=$src" \
  > build/html-test/verdict.html 2> build/html-test/chromium.log
verdict=$(sed -n '/<pre id="verdict">/,/DONE/p' build/html-test/verdict.html | sed 's/<[^>]*>//g; s/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g')
echo "$verdict" | grep '^INFO' | sed 's/^INFO /browser: /'
echo "browser: the checks took $(( $(date +%s) - start )) s"
# The PDF's table numbers, in order, when the PDF the site ships was built
# here (its .aux lists every numbered table, captioned or not): the web's
# must be the same.
pdf_tables() {
  [ -n "$pdf" ] && [ -f build/book.aux ] || return 1
  grep -o '{lot}{\\contentsline {table}{\\numberline {[^}]*}' build/book.aux | sed 's/.*{//; s/}$//' | tr '\n' ' ' | sed 's/ $//'
}
for c in $checks; do
  echo "[ RUN      ] html_$c"
  line=$(echo "$verdict" | grep -E "^(OK|FAIL) $c(:|$)")
  if [ "$c" = table_numbers ] && [ "$line" = "OK $c" ] && want=$(pdf_tables); then
    got=$(echo "$verdict" | sed -n 's/^INFO tables //p')
    [ "$got" = none ] && got=""
    [ "$got" = "$want" ] || line="FAIL $c: the web's tables are numbered $got|the PDF's (build/book.aux) are $want"
  fi
  case $line in
    "OK $c") echo "[       OK ] html_$c" ;;
    FAIL*)   echo "${line#FAIL }" | tr '|' '\n'; echo "[  FAILED  ] html_$c" ;;
    *)       echo "no verdict from the browser for $c"; echo "$verdict" | grep '^ERROR' | head -3
             tail -3 build/html-test/chromium.log; echo "[  FAILED  ] html_$c" ;;
  esac
done

# Screenshots of two pages (the contents, and a chapter with code, math
# and figures) at both widths: build artifacts, for a person to look at.
echo "[ RUN      ] html_screenshots"
ok=1
for p in index memory; do
  for w in 390 1280; do
    rm -f "$shots/$p-$w.png"
    timeout 60 "$browser" "${flags[@]}" --screenshot="$PWD/$shots/$p-$w.png" --window-size=$w,1600 \
      "file://$PWD/build/html/$p.html" >> build/html-test/chromium.log 2>&1
    if [ -s "$shots/$p-$w.png" ]; then echo "$shots/$p-$w.png"; else echo "no screenshot $p at $w px"; ok=0; fi
  done
done
[ $ok = 1 ] && echo "[       OK ] html_screenshots" || echo "[  FAILED  ] html_screenshots"

# The checker itself: on a two-page fixture site with a link to a missing
# anchor, a missing figure, a block 600 px wide, no sidebar, no search, no
# link to the PDF, a glossary whose Chinese has no lang, a table whose
# caption has no number and which scrolls in 300 px at 1280 px, and
# \mathrm{max} as pandoc writes it (three one-letter <mi>s in an mstyle),
# it must fail each of these.
echo "[ RUN      ] html_checker_catches_faults"
fx=build/html-test/fixture; rm -rf "$fx"; mkdir -p "$fx"
cat > "$fx/a.html" <<'HTML'
<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width"></head><body><main>
<h1 id="a">A<a class="anchor" href="#a">#</a></h1><p><a href="glossary.html#nowhere">a link to no anchor</a></p>
<img src="fig/missing.svg" alt="a missing figure"><div style="width:600px">wide</div>
<figure class="table" style="max-width:300px"><div class="scroll" style="overflow-x:auto"><table style="width:600px"><tr><td>a wide row</td></tr></table></div><figcaption>Measured: a caption without its number</figcaption></figure>
<p><math display="inline"><semantics><mrow><msub><mstyle mathvariant="normal"><mi>m</mi><mi>a</mi><mi>x</mi></mstyle><mi>i</mi></msub></mrow><annotation encoding="application/x-tex">\mathrm{max}_i</annotation></semantics></math></p>
<nav class="prevnext"><a class="next" href="glossary.html">B</a></nav></main></body></html>
HTML
cat > "$fx/glossary.html" <<'HTML'
<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head><body><main>
<h1 id="b">B<a class="anchor" href="#b">#</a></h1><p>warp: 线程束</p><nav class="prevnext"><a class="prev" href="a.html">A</a></nav></main></body></html>
HTML
timeout 120 "$browser" "${flags[@]}" --virtual-time-budget=60000 --dump-dom \
  "file://$PWD/build/html-test/check.html?site=fixture/&pages=a.html,glossary.html&ident=none&wrong=0&word=nowhere&pdf=book.pdf" \
  > build/html-test/fixture.html 2>> build/html-test/chromium.log
fx_verdict=$(sed -n '/<pre id="verdict">/,/DONE/p' build/html-test/fixture.html)
ok=1
for c in links_resolve images_load no_horizontal_scroll_390 sidebar search_finds_text downloads_linked glossary_lang \
         table_numbers math_upright wide_tables; do
  echo "$fx_verdict" | grep -q "^FAIL $c:" || { echo "the checker passed the fixture's fault for $c"; ok=0; }
done
echo "$fx_verdict" | grep -q "^OK prev_next" || { echo "the checker failed the fixture's good prev/next links"; ok=0; }
# the chunk markup: a name with [[sub]] left as brackets, in the web's
# header and the PDF's, and a footer with 7 uses
cat > "$fx/markup.html" <<'HTML'
<div class="nwchunk" id="nw1"><div class="nwhead"><a class="nwnum" href="#nw1">1</a> &#x27E8;lane [[sub]]&#x27E9;&#x2261;</div>
<div class="nwfoot">Used in <a href="#nw1">1</a>, <a href="#nw2">2</a>, <a href="#nw3">3</a>, <a href="#nw4">4</a>, <a href="#nw5">5</a>, <a href="#nw6">6</a>, <a href="#nw7">7</a>. </div></div>
HTML
printf '%s\n' '\nwlines{3}\nwbegin{1}{lane [[sub]]}{\nwdefsign}{}' '\nwend{Used in \hyperlink{nw2}{2}. }' > "$fx/markup.tex"
n=$(markup_faults "$fx/markup.html" "$fx/markup.tex" | wc -l)
[ "$n" = 3 ] || { echo "the markup check found $n of the fixture's 3 faults"; markup_faults "$fx/markup.html" "$fx/markup.tex"; ok=0; }
[ $ok = 1 ] && echo "[       OK ] html_checker_catches_faults" || echo "[  FAILED  ] html_checker_catches_faults"
