// Runs before the page paints, so a dark theme never flashes light.
(function () {
  var saved = null;
  try {
    saved = localStorage.getItem('synapse-canvas-theme');
  } catch (e) {
    saved = null;
  }
  var dark = saved ? saved === 'dark' : window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches;
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
})();
