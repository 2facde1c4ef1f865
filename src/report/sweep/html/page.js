(function () {
  "use strict";
  var PAGE = 100;
  var data = JSON.parse(document.getElementById("data").textContent);
  var table = document.getElementById("servers");
  var form = document.querySelector("form.filters");
  var pager = document.querySelector("nav.pager");
  var count = form.querySelector(".count");
  var heads = table.tHead.rows[0].cells;
  var rank = {};
  data.statuses.forEach(function (s, i) { rank[s] = i; });
  // Each row's values, read once from its cells: the page holds them only as HTML.
  var rows = Array.prototype.map.call(table.querySelectorAll("tbody.srv"), function (el, n) {
    var c = el.rows[0].cells, d = el.dataset;
    var seconds = function (td) { var v = parseFloat(td.textContent); return isNaN(v) ? -1 : v; };
    var s = c[0].textContent;
    return {
      el: el, n: n, s: s, rank: s in rank ? rank[s] : 99, cells: c,
      g: c[3].textContent, i: seconds(c[6]), t: seconds(c[7]),
      k: d.k ? d.k.split(" ") : [], c: d.c ? d.c.split(" ") : [], text: null
    };
  });
  var state = { sort: -1, dir: 1, page: 0, shown: [] };
  var matching = rows;

  function haystack(row) {
    if (row.text === null) { row.text = row.el.rows[0].textContent.toLowerCase(); }
    return row.text;
  }
  function option(select, value) {
    var o = document.createElement("option");
    o.value = value; o.textContent = value;
    select.appendChild(o);
  }
  [["s", data.statuses], ["k", data.classes], ["c", Object.keys(data.codes)], ["g", data.registries]]
    .forEach(function (f) { f[1].forEach(function (v) { option(form.elements[f[0]], v); }); });

  function apply() {
    var f = form.elements, s = f.s.value, k = f.k.value, c = f.c.value, g = f.g.value;
    var q = f.q.value.trim().toLowerCase();
    matching = rows.filter(function (r) {
      return (!s || r.s === s) && (!k || r.k.indexOf(k) >= 0) && (!c || r.c.indexOf(c) >= 0) &&
        (!g || r.g === g) && (!q || haystack(r).indexOf(q) >= 0);
    });
    state.page = 0;
    show();
  }

  function show() {
    state.shown.forEach(function (r) { r.el.classList.remove("shown"); });
    var pages = Math.max(1, Math.ceil(matching.length / PAGE));
    if (state.page >= pages) { state.page = pages - 1; }
    var from = state.page * PAGE;
    state.shown = matching.slice(from, from + PAGE);
    state.shown.forEach(function (r) { r.el.classList.add("shown"); });
    count.textContent = matching.length === rows.length
      ? rows.length + " servers"
      : matching.length + " of " + rows.length + " servers match";
    pager.hidden = pages < 2;
    // The pager is drawn anew: a keyboard user on one of its buttons stays on it.
    var focused = pager.contains(document.activeElement) ? document.activeElement.textContent : null;
    pager.innerHTML = "";
    if (pages > 1) {
      var prev = button("Previous page", state.page === 0, function () { state.page--; show(); });
      var label = document.createElement("span");
      label.textContent = "Page " + (state.page + 1) + " of " + pages + " (" +
        (from + 1) + "–" + (from + state.shown.length) + ")";
      var next = button("Next page", state.page === pages - 1, function () { state.page++; show(); });
      pager.append(prev, label, next);
      if (focused) { (focused === prev.textContent && !prev.disabled || next.disabled ? prev : next).focus(); }
    }
  }

  function button(text, disabled, onclick) {
    var b = document.createElement("button");
    b.type = "button"; b.textContent = text; b.disabled = disabled;
    b.addEventListener("click", onclick);
    return b;
  }

  function sortBy(col) {
    var how = heads[col].dataset.sort;
    state.dir = state.sort === col ? -state.dir : 1;
    state.sort = col;
    var value = function (r) {
      if (how === "r") { return r.rank; }
      if (how === "n") { return col === 6 ? r.i : r.t; }
      return r.cells[col].textContent;
    };
    rows.sort(function (a, b) {
      var x = value(a), y = value(b);
      var c = how === "t" ? x.localeCompare(y) : x - y;
      return (c || a.n - b.n) * state.dir;
    });
    var frag = document.createDocumentFragment();
    rows.forEach(function (r) { frag.appendChild(r.el); });
    table.appendChild(frag);
    Array.prototype.forEach.call(heads, function (th, i) {
      if (i === col) { th.setAttribute("aria-sort", state.dir > 0 ? "ascending" : "descending"); }
      else { th.removeAttribute("aria-sort"); }
    });
    apply();
  }

  Array.prototype.forEach.call(heads, function (th, i) {
    var b = button(th.textContent, false, function () { sortBy(i); });
    th.textContent = "";
    th.appendChild(b);
  });

  function expand(btn) {
    var body = btn.closest("tbody");
    var open = body.classList.toggle("open");
    btn.setAttribute("aria-expanded", open ? "true" : "false");
    if (open && !body.dataset.filled) {
      body.dataset.filled = "1";
      body.querySelectorAll(".finding[data-code]").forEach(function (f) {
        var info = data.codes[f.dataset.code];
        if (!info) { return; }
        var fix = f.querySelector(".fix");
        var text = fix && info.fixes[+fix.dataset.fix];
        if (text) { fix.lastChild.replaceWith(document.createTextNode(text)); }
        var p = document.createElement("p");
        p.className = "clients";
        p.textContent = info.clients
          ? "What real clients did: " + info.clients
          : "No real client was observed with " + f.dataset.code + ".";
        f.appendChild(p);
      });
    }
  }

  function copy(btn) {
    var text = btn.previousElementSibling.textContent;
    var done = function (ok) {
      btn.textContent = ok ? "Copied" : "Select and copy";
      btn.setAttribute("data-copied", ok ? "yes" : "no");
    };
    var fallback = function () {
      var area = document.createElement("textarea");
      area.value = text; area.setAttribute("readonly", "");
      area.style.position = "fixed"; area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      area.remove();
      done(ok);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
    } else {
      fallback();
    }
  }

  table.addEventListener("click", function (e) {
    var t = e.target.closest("button");
    if (!t) { return; }
    if (t.classList.contains("exp")) { expand(t); }
    else if (t.classList.contains("copy")) { copy(t); }
  });
  form.addEventListener("input", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  form.hidden = false;
  apply();
  document.documentElement.setAttribute("data-ready", String(Math.round(performance.now())));
})();
