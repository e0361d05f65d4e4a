// prose ui: the world pages' script. The graph page recolours its nodes
// as receipts land (it asks /ui/world/status what moved since the version
// it shows, on each "world" event); a drain's page steps through the
// drain without a reload. Both pages are whole without it.
(function () {
  "use strict";

  function nodesById(root) {
    var by = {};
    root.querySelectorAll("a.node[data-id]").forEach(function (el) { by[el.getAttribute("data-id")] = el; });
    return by;
  }

  function paint(el, cls, title) {
    if (!el) { return; }
    el.setAttribute("class", cls);
    var t = el.querySelector("title");
    if (t) { t.textContent = title; }
  }

  // live: the graph page follows the drains. ui.js may replace <main>
  // with a fresh copy of the page (it does when its stream opens): the
  // boxes are then looked up again, from the copy's version.
  function live() {
    var idx = null, version = 0;
    function index() {
      var svg = document.querySelector("svg.world-graph");
      if (!svg) { return null; }
      if (!idx || idx.svg !== svg) {
        var rows = {};
        document.querySelectorAll(".node-table tr[data-id]").forEach(function (tr) { rows[tr.getAttribute("data-id")] = tr; });
        idx = { svg: svg, boxes: nodesById(svg), rows: rows };
        version = parseInt(svg.getAttribute("data-version"), 10) || 0;
      }
      return idx;
    }
    var busy = false, again = false;
    function ask() {
      if (busy) { again = true; return; }
      if (!index()) { return; }
      busy = true;
      fetch("/ui/world/status?since=" + version, { credentials: "same-origin", headers: { "Accept": "application/json" } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (c) { if (c) { apply(c); } })
        .catch(function () {})
        .then(function () {
          busy = false;
          if (again) { again = false; ask(); }
        });
    }
    function apply(c) {
      var ix = index();
      if (!ix || c.version < version) { return; }
      version = c.version;
      ix.svg.setAttribute("data-version", String(version));
      c.nodes.forEach(function (s) {
        paint(ix.boxes[s.id], c.classes[s.id], c.titles[s.id]);
        var tr = ix.rows[s.id];
        if (tr) {
          var st = tr.querySelector(".st");
          st.textContent = "";
          var span = document.createElement("span");
          span.className = "status status-" + s.status;
          span.textContent = s.status;
          st.appendChild(span);
          if (s.failing) { st.appendChild(document.createTextNode(" verification fails")); }
          tr.querySelector(".why").textContent = s.why || "";
        }
      });
      (c.counts || []).forEach(function (n) {
        var el = document.querySelector('.legend .count[data-status="' + n.status + '"]');
        if (el) { el.textContent = String(n.n); }
      });
      var d = document.getElementById("world-drain");
      if (d && c.drain) { d.textContent = "last drain " + c.drain; }
      var list = document.getElementById("landed");
      if (list && c.receipts.length) {
        var none = document.getElementById("landed-none");
        if (none) { none.hidden = true; }
        c.receipts.forEach(function (r) {
          var li = document.createElement("li");
          var a = document.createElement("a");
          a.href = "/ui/world/drain/" + r.drain + "?step=" + r.seq;
          a.textContent = "drain " + r.drain + " step " + r.seq;
          li.appendChild(a);
          li.appendChild(document.createTextNode(": " + r.node + " " + r.status + " (" + r.wake + ")"));
          list.insertBefore(li, list.firstChild);
        });
        while (list.children.length > 50) { list.removeChild(list.lastChild); }
      }
    }
    window.proseUI.on("world", ask);
    document.addEventListener("prose:refreshed", function () { idx = null; ask(); });
    ask(); // what moved between the page and the connection
  }

  // replay: a drain's page steps through the drain.
  function replay(data, svg) {
    var boxes = nodesById(svg);
    var steps = data.steps || [];
    var at = document.getElementById("replay-at");
    var m = /[?&]step=(\d+)/.exec(location.search);
    var k = m ? Math.min(parseInt(m[1], 10), steps.length) : steps.length;
    var timer = null;
    function show(n) {
      k = Math.max(0, Math.min(n, steps.length));
      data.before.forEach(function (c) { paint(boxes[c.id], c.class, c.title); });
      for (var i = 0; i < k; i++) {
        steps[i].changes.forEach(function (c) { paint(boxes[c.id], c.class, c.title); });
      }
      if (k > 0) {
        var cur = boxes[steps[k - 1].node];
        if (cur) { cur.setAttribute("class", cur.getAttribute("class") + " current"); }
      }
      document.querySelectorAll("table.steps tr").forEach(function (tr) {
        var on = tr.id === "step-" + k;
        tr.classList.toggle("current", on);
        if (on) { tr.setAttribute("aria-current", "step"); } else { tr.removeAttribute("aria-current"); }
      });
      if (at) { at.textContent = k ? "Step " + k + " of " + steps.length : "Before the drain (" + steps.length + " steps)"; }
      history.replaceState(null, "", location.pathname + "?step=" + k);
    }
    document.querySelectorAll("nav.replay a[data-step]").forEach(function (a) {
      a.addEventListener("click", function (ev) {
        ev.preventDefault();
        var s = a.getAttribute("data-step");
        show(s === "prev" ? k - 1 : s === "next" ? k + 1 : s === "last" ? steps.length : 0);
      });
    });
    document.querySelectorAll("table.steps tr[id^=step-] a").forEach(function (a) {
      if (a.closest("td.num")) {
        a.addEventListener("click", function (ev) {
          ev.preventDefault();
          show(parseInt(a.closest("tr").id.slice(5), 10));
        });
      }
    });
    var play = document.getElementById("replay-play");
    if (play) {
      play.hidden = false;
      play.addEventListener("click", function () {
        if (timer) { clearInterval(timer); timer = null; play.textContent = "Play"; return; }
        if (k >= steps.length) { show(0); }
        play.textContent = "Pause";
        timer = setInterval(function () {
          if (k >= steps.length) { clearInterval(timer); timer = null; play.textContent = "Play"; return; }
          show(k + 1);
        }, 400);
      });
    }
    document.addEventListener("keydown", function (ev) {
      if (ev.target && /^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName)) { return; }
      if (ev.key === "ArrowRight") { show(k + 1); } else if (ev.key === "ArrowLeft") { show(k - 1); }
    });
  }

  function start() {
    var svg = document.querySelector("svg.world-graph");
    if (!svg) { return; }
    var data = document.getElementById("replay-data");
    if (data) {
      try { replay(JSON.parse(data.textContent), svg); } catch (e) { /* the links still step */ }
      return;
    }
    if (window.proseUI && document.body.getAttribute("data-live")) { live(); }
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
