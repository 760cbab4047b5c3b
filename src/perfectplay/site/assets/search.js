// Site search: runs in the browser over assets/search-index.js, which the build wrote.
// No request leaves the page: the index is a script beside this one.
(function () {
  "use strict";
  var index = window.PERFECTPLAY_SEARCH || [];
  var base = (document.currentScript && document.currentScript.src || "").replace(/assets\/search\.js.*$/, "");
  var prepared = index.map(function (d) {
    return { doc: d, hay: (d.title + " " + d.meta + " " + d.text).toLowerCase(), title: d.title.toLowerCase() };
  });

  function words(query) {
    return query.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter(function (w) { return w.length > 0; });
  }

  function find(query) {
    var ws = words(query);
    if (!ws.length) return [];
    var hits = [];
    prepared.forEach(function (p) {
      var score = 0;
      for (var i = 0; i < ws.length; i++) {
        if (p.hay.indexOf(ws[i]) < 0) return;
        score += p.title.indexOf(ws[i]) >= 0 ? 10 : 1;
      }
      if (p.doc.kind === "entry") score += 0.5;
      hits.push({ score: score, doc: p.doc });
    });
    hits.sort(function (a, b) { return b.score - a.score || (a.doc.title < b.doc.title ? -1 : 1); });
    return { words: ws, hits: hits.map(function (h) { return h.doc; }) };
  }

  function snippet(text, ws) {
    var lower = text.toLowerCase(), at = -1, len = 0;
    for (var i = 0; i < ws.length && at < 0; i++) { at = lower.indexOf(ws[i]); len = ws[i].length; }
    if (at < 0) return document.createTextNode(text.slice(0, 160));
    var start = Math.max(0, at - 70), end = Math.min(text.length, at + len + 90);
    var span = document.createElement("span");
    span.appendChild(document.createTextNode((start > 0 ? "… " : "") + text.slice(start, at)));
    var mark = document.createElement("mark");
    mark.textContent = text.slice(at, at + len);
    span.appendChild(mark);
    span.appendChild(document.createTextNode(text.slice(at + len, end) + (end < text.length ? " …" : "")));
    return span;
  }

  function show(box, query) {
    box.textContent = "";
    if (!query.trim()) return;
    var found = find(query);
    if (!found.hits || !found.hits.length) {
      var none = document.createElement("p");
      none.className = "none";
      none.textContent = "Nothing matches “" + query + "”.";
      box.appendChild(none);
      return;
    }
    found.hits.slice(0, 50).forEach(function (d) {
      var hit = document.createElement("div");
      hit.className = "hit";
      hit.setAttribute("data-url", d.url);
      var a = document.createElement("a");
      a.href = base + d.url;
      a.textContent = d.title;
      var kind = document.createElement("span");
      kind.className = "hit-kind";
      kind.textContent = d.kind === "entry" ? d.meta : "documentation";
      var p = document.createElement("p");
      p.className = "hit-snippet";
      p.appendChild(snippet(d.text, found.words));
      hit.appendChild(a);
      hit.appendChild(kind);
      hit.appendChild(p);
      box.appendChild(hit);
    });
  }

  var initial = new URLSearchParams(window.location.search).get("q") || "";
  document.querySelectorAll("form[data-search]").forEach(function (form) {
    var input = form.querySelector("input");
    var box = document.getElementById(form.getAttribute("data-search"));
    if (!input || !box) return;
    input.addEventListener("input", function () { show(box, input.value); });
    form.addEventListener("submit", function (ev) { ev.preventDefault(); show(box, input.value); });
    if (initial) { input.value = initial; show(box, initial); }
  });
})();
