// book.js -- the web edition's offline search: BOOK_SEARCH (search-index.js,
// written by tools/html-site.awk) holds [kind, text, page#anchor] for every
// section title, chunk name and identifier; every word typed must occur.
(function () {
  var box = document.getElementById("search"), list = document.getElementById("search-results");
  if (!box || !list || typeof BOOK_SEARCH === "undefined") return;
  function find(q) {
    var words = q.toLowerCase().split(/\s+/).filter(Boolean), hits = [];
    if (!words.length) return hits;
    BOOK_SEARCH.forEach(function (e) {
      var t = e[1].toLowerCase();
      if (words.every(function (w) { return t.indexOf(w) >= 0; }))
        hits.push({ e: e, rank: (t === words.join(" ") ? 0 : e[0] === "identifier" ? 1 : e[0] === "section" ? 2 : 3) });
    });
    hits.sort(function (a, b) { return a.rank - b.rank; });
    return hits.slice(0, 15).map(function (h) { return h.e; });
  }
  function show() {
    var hits = find(box.value);
    list.textContent = "";
    hits.forEach(function (e) {
      var li = document.createElement("li"), a = document.createElement("a"), k = document.createElement("span");
      a.href = e[2]; a.textContent = e[1]; k.className = "kind"; k.textContent = e[0];
      a.appendChild(k); li.appendChild(a); list.appendChild(li);
    });
    list.hidden = !box.value.trim();
    if (box.value.trim() && !hits.length) { var li = document.createElement("li"); li.textContent = "nothing found"; li.className = "none"; list.appendChild(li); }
  }
  box.addEventListener("input", show);
  box.addEventListener("keydown", function (ev) {
    var first = list.querySelector("a");
    if (ev.key === "Enter" && first) location.href = first.href;
    if (ev.key === "Escape") { box.value = ""; show(); }
  });
  document.addEventListener("click", function (ev) { if (!ev.target.closest(".search")) list.hidden = true; });
  box.addEventListener("focus", show);
})();
