// dist/cli/output/progress.js
var SILENT = { update() {
}, succeed() {
}, fail() {
}, stop() {
} };
var REDRAW_MS = 80;
var PLAIN_UPDATE_MS = 5e3;
async function startProgress(ui, text) {
  if (!ui.interactive)
    return SILENT;
  if (!ui.canAnimate)
    return plainProgress(ui, text);
  const { default: ora } = await import("ora");
  const spinner = ora({
    text,
    stream: ui.ctx.stderr,
    isEnabled: true,
    // Not ora's default: it puts stdin in raw mode, where Ctrl-C is a keystroke read only when
    // the event loop runs (never, during a day's synchronous work) instead of a SIGINT.
    discardStdin: false,
    color: "cyan"
  }).start();
  let drawn = 0;
  const fit = (t) => {
    const columns = ui.ctx.stderr.columns ?? 80;
    return t.length <= columns - 2 ? t : `${t.slice(0, Math.max(0, columns - 3))}\u2026`;
  };
  return {
    update(t) {
      spinner.text = fit(t);
      const now = Date.now();
      if (spinner.isSpinning && now - drawn >= REDRAW_MS) {
        drawn = now;
        spinner.render();
      }
    },
    succeed(t) {
      spinner.succeed(t);
    },
    fail(t) {
      spinner.fail(t);
    },
    stop() {
      spinner.stop();
    }
  };
}
function plainProgress(ui, text) {
  const write = (line) => ui.ctx.stderr.write(`${line}
`);
  write(text);
  let written = Date.now();
  let done = false;
  return {
    update(t) {
      const now = Date.now();
      if (done || now - written < PLAIN_UPDATE_MS)
        return;
      written = now;
      write(t);
    },
    succeed(t) {
      if (!done && t)
        write(t);
      done = true;
    },
    fail(t) {
      if (!done && t)
        write(t);
      done = true;
    },
    stop() {
      done = true;
    }
  };
}

export {
  startProgress
};
