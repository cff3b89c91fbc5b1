// dist/lib/db-url.js
var PG_SCHEME = /^postgres(?:ql)?:\/\//i;
function isPostgresUrl(db) {
  return PG_SCHEME.test(db.trim());
}
function redactDbUrl(url) {
  return url.replace(/(postgres(?:ql)?:\/\/[^:@/?#\s]*:)[^@\s]*@/gi, "$1***@").replace(/([?&]password=)[^&#\s]*/gi, "$1***");
}
function dbUrlPassword(url) {
  const info = /^postgres(?:ql)?:\/\/[^:@/?#\s]*:([^@\s]*)@/i.exec(url.trim());
  const param = /[?&]password=([^&#\s]*)/i.exec(url);
  const raw = info?.[1] ?? param?.[1];
  if (raw === void 0 || raw === "")
    return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
function scrubDbSecret(text, url) {
  let out = redactDbUrl(text);
  const password = dbUrlPassword(url);
  if (password !== null && password.length > 0) {
    const raw = /^postgres(?:ql)?:\/\/[^:@/?#\s]*:([^@\s]*)@/i.exec(url.trim())?.[1];
    for (const secret of /* @__PURE__ */ new Set([password, raw ?? password, encodeURIComponent(password)])) {
      if (secret.length > 0)
        out = out.split(secret).join("***");
    }
  }
  return out;
}

export {
  isPostgresUrl,
  redactDbUrl,
  scrubDbSecret
};
