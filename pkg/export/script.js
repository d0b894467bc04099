// Optional: the page reads without it. It adds the toolbar (open every
// folded branch, every thinking block, every long tool output, and a
// search box that filters the entries) and opens the folded branches
// around an entry a link points to.
(function () {
  "use strict";
  var body = document.body;
  function setAll(selector, open) {
    document.querySelectorAll(selector).forEach(function (d) { d.open = open; });
  }
  var actions = {
    branches: function (on) { setAll("details.branch", on); },
    thinking: function (on) { setAll("details.thinking", on); },
    output: function (on) { body.classList.toggle("full-output", on); }
  };
  var bar = document.getElementById("toolbar");
  bar.querySelectorAll("button").forEach(function (b) {
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", function () {
      var on = b.getAttribute("aria-pressed") !== "true";
      b.setAttribute("aria-pressed", String(on));
      actions[b.dataset.act](on);
    });
  });
  bar.hidden = false;
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    for (var p = el && el.parentElement; p; p = p.parentElement) {
      if (p.tagName === "DETAILS") p.open = true;
    }
    if (el) el.scrollIntoView();
  }
  // The search box hides the entries without the words typed (and their
  // lines in the tree), opening the folded branches that hold a match;
  // ?search=WORDS in the page's address fills it in.
  var search = document.getElementById("search");
  var count = document.getElementById("search-count");
  var entries = Array.prototype.slice.call(document.querySelectorAll("article.entry"));
  var links = Array.prototype.slice.call(document.querySelectorAll("#tree li"));
  function filter() {
    var q = search.value.trim().toLowerCase();
    var shown = 0, hidden = {};
    entries.forEach(function (e) {
      var hit = !q || e.textContent.toLowerCase().indexOf(q) >= 0;
      e.hidden = !hit;
      if (!hit) { hidden["#" + e.id] = true; return; }
      shown++;
      for (var p = q && e.parentElement; p; p = p.parentElement) {
        if (p.tagName === "DETAILS") p.open = true;
      }
    });
    links.forEach(function (li) {
      var a = li.querySelector("a");
      li.hidden = !!(a && hidden[a.getAttribute("href")]);
    });
    count.textContent = q ? shown + " of " + entries.length + " entries" : "";
  }
  search.addEventListener("input", filter);
  var asked = new URLSearchParams(location.search).get("search");
  if (asked) { search.value = asked; filter(); }
  window.addEventListener("hashchange", reveal);
  if (location.hash) reveal();
  document.documentElement.dataset.script = "ran";
})();
