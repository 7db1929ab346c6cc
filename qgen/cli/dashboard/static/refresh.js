// qgen dashboard's live refresh: every data-refresh seconds, fetch this page again and put its <main>
// in place of the one shown. The only script the page loads (its Content-Security-Policy allows no other);
// without it the page works the same and is refreshed by reloading it.
(function () {
  "use strict";
  var seconds = Number(document.body.getAttribute("data-refresh"));
  if (!(seconds > 0) || !window.fetch || !window.DOMParser) {
    return;
  }
  function swap() {
    window.fetch(window.location.href, {credentials: "same-origin", headers: {"Accept": "text/html"}})
      .then(function (answer) { return answer.ok ? answer.text() : null; })
      .then(function (text) {
        if (text === null) {
          return;
        }
        var fresh = new window.DOMParser().parseFromString(text, "text/html").querySelector("main");
        var shown = document.querySelector("main");
        if (fresh && shown) {
          shown.replaceWith(document.importNode(fresh, true));
        }
      })
      .catch(function () { /* the server is away: try again at the next round */ })
      .then(function () { window.setTimeout(swap, seconds * 1000); });
  }
  window.setTimeout(swap, seconds * 1000);
}());
