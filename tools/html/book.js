// book.js -- the web edition's offline search.  search-index.js (written by
// tools/html-site.awk) holds BOOK_SEARCH, [kind, text, page#anchor] for every
// section title, chunk name and identifier, and BOOK_PAGES, each page's title.
// Every word typed must occur; exact matches come first, then those that
// start with the query, then matches at a word's start, sections before
// chunks before identifiers.
(function () {
  var box = document.getElementById("search"), list = document.getElementById("search-results");
  if (!box || !list || typeof BOOK_SEARCH === "undefined") return;
  var kinds = { section: 0, chunk: 1, identifier: 2 };
  function find(q) {
    var query = q.trim().toLowerCase(), words = query.split(/\s+/).filter(Boolean), hits = [];
    if (!words.length) return hits;
    BOOK_SEARCH.forEach(function (e) {
      var t = e[1].toLowerCase();
      if (!words.every(function (w) { return t.indexOf(w) >= 0; })) return;
      var r = t === query || t.replace(/^[\d.]+ /, "") === query ? 0 : t.indexOf(query) === 0 ? 1
            : new RegExp("(^|[^a-z0-9])" + words[0].replace(/[^a-z0-9]/g, "\\$&")).test(t) ? 2 : 3;
      hits.push({ e: e, r: r * 10 + kinds[e[0]] });
    });
    hits.sort(function (a, b) { return a.r - b.r || a.e[1].length - b.e[1].length; });
    return hits.slice(0, 20).map(function (h) { return h.e; });
  }
  function show() {
    var hits = find(box.value);
    list.textContent = "";
    hits.forEach(function (e) {
      var li = document.createElement("li"), a = document.createElement("a"), k = document.createElement("span");
      a.href = e[2]; a.textContent = e[1]; k.className = "kind";
      k.textContent = e[0] + (typeof BOOK_PAGES !== "undefined" && BOOK_PAGES[e[2].split("#")[0]] ? " \u00b7 " + BOOK_PAGES[e[2].split("#")[0]] : "");
      a.appendChild(k); li.appendChild(a); list.appendChild(li);
    });
    if (box.value.trim() && !hits.length) { var li = document.createElement("li"); li.className = "none"; li.textContent = "nothing found"; list.appendChild(li); }
    list.hidden = !box.value.trim();
  }
  box.addEventListener("input", show);
  box.addEventListener("focus", show);
  box.addEventListener("keydown", function (ev) {
    var first = list.querySelector("a");
    if (ev.key === "Enter" && first) location.href = first.href;
    if (ev.key === "Escape") { box.value = ""; show(); }
  });
  document.addEventListener("click", function (ev) { if (!ev.target.closest(".search")) list.hidden = true; });
})();
