// Optional: the page reads without it. It adds the toolbar (open every
// folded branch, every thinking block, every long tool output) and opens
// the folded branches around an entry a link points to.
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
  window.addEventListener("hashchange", reveal);
  if (location.hash) reveal();
  document.documentElement.dataset.script = "ran";
})();
