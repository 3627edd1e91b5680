// Runs before the app's code has loaded (a classic script, so it runs as the page is parsed):
// Enter in the shell's question box is kept as the wish to ask (the app asks once it is up and
// its service ready: src/renderer/src/app/boot-shell.ts), instead of a new line; Shift+Enter
// still makes one, as in the app's composer.
(function () {
  var box = document.getElementById('boot-composer');
  if (!box) return;
  box.addEventListener('keydown', function (event) {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      box.dataset.askWished = 'true';
    }
  });
})();
