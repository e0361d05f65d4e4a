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
  var pending = false;
  function refresh() {
    if (pending) { return; }
    pending = true;
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        pending = false;
        if (html === null) { return; }
        var doc = new DOMParser().parseFromString(html, "text/html");
        var next = doc.getElementById("main"), cur = document.getElementById("main");
        if (!next || !cur) { return; }
        // keep what a person is typing: a form being filled is not replaced
        var active = document.activeElement;
        if (active && cur.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName)) { return; }
        cur.innerHTML = next.innerHTML;
        document.dispatchEvent(new CustomEvent("prose:refreshed"));
      })
      .catch(function () { pending = false; });
  }
  function start() {
    var live = (document.body.getAttribute("data-live") || "").trim();
    if (!live || !window.EventSource) { return; }
    var es = new EventSource("/ui/events?topic=" + encodeURIComponent(live));
    var badge = document.getElementById("live");
    es.onopen = function () { if (badge) { badge.hidden = false; } };
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
