// prose ui: live updates over server-sent events. The pages are whole
// without this script; it only fetches a page again when what it shows
// changed, and lets pages register handlers: proseUI.on(topic, fn).
(function () {
  "use strict";
  var handlers = {};
  var ui = {
    on: function (topic, fn) { (handlers[topic] = handlers[topic] || []).push(fn); },
    refresh: refresh
  };
  window.proseUI = ui;
  // One fetch at a time; an event that arrives during one fetches again
  // after it, so the last change is never lost.
  var pending = false, again = false;
  function refresh() {
    if (pending) { again = true; return; }
    pending = true;
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) { return; }
        var doc = new DOMParser().parseFromString(html, "text/html");
        var next = doc.getElementById("main"), cur = document.getElementById("main");
        if (!next || !cur || next.innerHTML === cur.innerHTML) { return; }
        // keep what a person is typing: the page is replaced once the
        // field they are in loses focus
        var active = document.activeElement;
        if (active && cur.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName)) {
          active.addEventListener("blur", refresh, { once: true });
          return;
        }
        cur.innerHTML = next.innerHTML;
        document.dispatchEvent(new CustomEvent("prose:refreshed"));
      })
      .catch(function () {})
      .then(function () {
        pending = false;
        if (again) { again = false; refresh(); }
      });
  }
  function start() {
    var live = (document.body.getAttribute("data-live") || "").trim();
    if (!live || !window.EventSource) { return; }
    var es = new EventSource("/ui/events?topic=" + encodeURIComponent(live));
    var badge = document.getElementById("live");
    // What changed between the page's rendering and the stream's
    // opening (or while it was reconnecting) came with no event: the
    // page fetches itself once on every open.
    es.onopen = function () {
      if (badge) { badge.hidden = false; }
      refresh();
    };
    es.onerror = function () { if (badge) { badge.hidden = true; } };
    live.split(",").forEach(function (topic) {
      es.addEventListener(topic, function (ev) {
        var data = null;
        try { data = JSON.parse(ev.data); } catch (e) { data = null; }
        var only = document.body.getAttribute("data-live-id");
        if (only && data && data.ids && data.ids.indexOf(only) < 0) { return; }
        var hs = handlers[topic];
        if (hs && hs.length) { hs.forEach(function (fn) { fn(data); }); return; }
        refresh();
      });
    });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
