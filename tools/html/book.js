// book.js -- the web edition's chapter menu and offline search.
//
// The menu: every page has the chapters in a sidebar (tools/html-site.awk);
// a wide screen shows it beside the text (book.css), a narrow one behind
// the bar's button, which this opens and closes.
//
// The search: search-index.js (written by tools/html-site.awk) holds
// BOOK_SEARCH, [kind, text, page#anchor] for every section title, chunk
// name and identifier, and BOOK_PAGES, each page's title.  Every word typed
// must occur; exact matches come first, then those that start with the
// query, then matches at a word's start, sections before chunks before
// identifiers.  Below them come the sections whose text has every word
// (search-text.js, the full-text index, loaded when the box is first used:
// BOOK_TEXT, word -> [section, count, ...], BOOK_SECTIONS, [page#anchor,
// title, page title], BOOK_STOP, the words it leaves out).  A query word of
// three letters or more also finds the words it begins ("coalesc" finds
// "coalesced"), the sections where it occurs most first.
//
// The wide tables: a table that does not fit in the column even with its
// cells wrapped (book.css gives it that width, past the column where the
// screen has room) is marked "wide", and book.css then sets its rows on
// one line each, as far as the room on the column's right goes.
(function () {
  var root = document.documentElement;
  root.classList.add("js");

  // ---- the wide tables ----
  function widen() {
    var figs = document.querySelectorAll("main figure.table"), i, f, m, cw;
    for (i = 0; i < figs.length; i++) figs[i].classList.remove("wide");
    for (i = 0; i < figs.length; i++) {
      f = figs[i]; m = getComputedStyle(f.parentElement);
      cw = f.parentElement.clientWidth - parseFloat(m.paddingLeft) - parseFloat(m.paddingRight);
      if (f.getBoundingClientRect().width > cw + 1) f.classList.add("wide");
    }
  }
  widen();
  window.addEventListener("load", widen);
  var widenLater = null;
  window.addEventListener("resize", function () { clearTimeout(widenLater); widenLater = setTimeout(widen, 100); });

  // ---- the chapter menu ----
  var bar = document.querySelector(".bar"), menu = document.querySelector(".bar .menu"), side = document.getElementById("sidebar");
  function barHeight() { if (bar) root.style.setProperty("--bar-h", Math.round(bar.getBoundingClientRect().height) + "px"); }
  barHeight();
  window.addEventListener("resize", barHeight);
  if (menu && side) {
    var setOpen = function (open) {
      document.body.classList.toggle("menu-open", open);
      menu.setAttribute("aria-expanded", open ? "true" : "false");
      if (open) barHeight();
    };
    menu.addEventListener("click", function (ev) { ev.stopPropagation(); setOpen(!document.body.classList.contains("menu-open")); });
    document.addEventListener("click", function (ev) {
      if (document.body.classList.contains("menu-open") && (!ev.target.closest(".sidebar") || ev.target.closest("a"))) setOpen(false);
    });
    document.addEventListener("keydown", function (ev) { if (ev.key === "Escape") setOpen(false); });
    // the current chapter in view in the sidebar
    var cur = side.querySelector('[aria-current="page"]');
    if (cur && cur.offsetTop > side.clientHeight / 2) side.scrollTop = cur.offsetTop - side.clientHeight / 3;
  }

  // ---- the search ----
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
    return hits.slice(0, 12).map(function (h) { return h.e; });
  }

  // the full-text index, loaded once, on first use
  var text = 0, keys = null;          // text: 0 not asked for, 1 loading, 2 here, 3 failed
  function loadText() {
    if (text) return;
    text = 1;
    var s = document.createElement("script");
    s.src = "search-text.js";
    s.onload = function () { text = typeof BOOK_TEXT === "undefined" ? 3 : 2; show(); };
    s.onerror = function () { text = 3; show(); };
    document.head.appendChild(s);
  }
  function tokens(q) {
    var stop = (typeof BOOK_STOP === "string" ? BOOK_STOP : "").split(" ");
    return q.toLowerCase().split(/[^a-z0-9_\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+/)
      .map(function (w) { return w.replace(/^_+|_+$/g, ""); })
      .filter(function (w) { return w.length >= 2 && !/^[0-9]+$/.test(w) && stop.indexOf(w) < 0; });
  }
  function findText(q) {
    if (text !== 2) return [];
    var words = tokens(q), score = null;
    if (!words.length) return [];
    if (!keys) keys = Object.keys(BOOK_TEXT);
    words.forEach(function (w) {
      var s = {}, ks = w.length >= 3 ? keys.filter(function (k) { return k.lastIndexOf(w, 0) === 0; }) : (BOOK_TEXT.hasOwnProperty(w) ? [w] : []);
      ks.forEach(function (k) {
        var a = BOOK_TEXT[k];
        for (var i = 0; i < a.length; i += 2) s[a[i]] = (s[a[i]] || 0) + a[i + 1] * (k === w ? 2 : 1);
      });
      if (score === null) score = s;
      else { var both = {}; for (var k in score) if (k in s) both[k] = score[k] + s[k]; score = both; }
    });
    return Object.keys(score).map(function (k) { return { s: BOOK_SECTIONS[k], n: score[k] }; })
      .sort(function (a, b) { return b.n - a.n; }).slice(0, 12);
  }
  function item(href, label, kind, cls) {
    var li = document.createElement("li"), a = document.createElement("a"), k = document.createElement("span");
    a.href = href; a.textContent = label; a.setAttribute("data-kind", cls); k.className = "kind"; k.textContent = kind;
    a.appendChild(k); li.appendChild(a); list.appendChild(li);
  }
  function show() {
    var q = box.value, hits = find(q), seen = {};
    list.textContent = "";
    hits.forEach(function (e) {
      seen[e[2]] = 1;
      var pg = typeof BOOK_PAGES !== "undefined" && BOOK_PAGES[e[2].split("#")[0]];
      item(e[2], e[1], e[0] + (pg ? " \u00b7 " + pg : ""), e[0]);
    });
    var th = findText(q).filter(function (h) { return !seen[h.s[0]]; });
    th.forEach(function (h) {
      item(h.s[0], h.s[1], "in the text" + (h.s[2] && h.s[2] !== h.s[1] ? " \u00b7 " + h.s[2] : ""), "text");
    });
    if (q.trim() && !hits.length && !th.length) {
      var li = document.createElement("li");
      li.className = "none"; li.textContent = text === 1 ? "searching the text\u2026" : "nothing found";
      list.appendChild(li);
    }
    list.hidden = !q.trim();
  }
  box.addEventListener("input", function () { loadText(); show(); });
  box.addEventListener("focus", function () { loadText(); show(); });
  box.addEventListener("keydown", function (ev) {
    var first = list.querySelector("a");
    if (ev.key === "Enter" && first) location.href = first.href;
    if (ev.key === "Escape") { box.value = ""; show(); }
  });
  document.addEventListener("click", function (ev) { if (!ev.target.closest(".search")) list.hidden = true; });
})();
