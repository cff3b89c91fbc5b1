import {
  verb
} from "./chunk-ZHXFIFOW.js";
import {
  validationError
} from "./chunk-U6UK7MPY.js";

// dist/cli/commands/serve/serve.js
function wholeNumber(flag, value, min, max) {
  if (value === void 0)
    return void 0;
  const text = String(value);
  const n = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw validationError(`${flag} must be a whole number from ${min} to ${max}; got '${text}'.`);
  return n;
}
function serveOptions(deps, flags) {
  return {
    ...deps,
    server: {
      host: String(flags.host ?? "127.0.0.1"),
      port: wholeNumber("--port", flags.port ?? "8080", 0, 65535),
      jsonLimit: wholeNumber("--json-limit", flags.jsonLimit, 1, 1024 ** 3),
      uploadLimit: wholeNumber("--upload-limit", flags.uploadLimit, 1, 1024 ** 4),
      rateLimit: wholeNumber("--rate-limit", flags.rateLimit, 0, 1e6),
      simulation: flags.simulation !== false
    }
  };
}
async function serveRun({ ctx, backend, server }) {
  return ctx.serve(await backend(), server, { stderr: ctx.stderr, signals: process });
}
var serve_default = verb(serveOptions, serveRun);
export {
  serve_default as default,
  serveOptions,
  serveRun
};
