// dist/cli/interrupt.js
function catchCtrlC(ctx, onFirst) {
  const controller = new AbortController();
  const signals = ctx.signals;
  const handler = () => {
    signals.removeAllListeners("SIGINT");
    controller.abort();
    onFirst();
  };
  signals.on("SIGINT", handler);
  return { signal: controller.signal, release: () => signals.removeListener("SIGINT", handler) };
}

export {
  catchCtrlC
};
