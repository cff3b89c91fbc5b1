/** One character of a key as text may carry it: itself or, in a URL, its percent-encoding. */
const KEY_PATTERN = (() => {
  const encoded = (ch: string) => `(?:${ch}|%${ch.charCodeAt(0).toString(16).replace(/[a-f]/g, (h) => `[${h}${h.toUpperCase()}]`)})`;
  const alnum = '(?:[A-Za-z0-9]|%(?:3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|6[1-9A-Fa-f]|7[0-9Aa]))';
  return new RegExp(`${[...'pmk_'].map(encoded).join('')}${alnum}{8,}`, 'g');
})();

/**
 * `text` with every premia API key in it (pmk_ and at least 8 more characters: one given where
 * something else belonged, `--base-url pmk_…`, a key pasted as an id into a URL path, or named
 * to `keys revoke`) shown as `pmk_…` and its last 4 characters: what the CLI writes on stderr
 * and what the service logs never hold a whole key (issue 1). A key percent-encoded in a URL
 * (`pmk%5F…`, `%70mk_…`, any of its characters) is one too.
 */
export function redactKeysIn(text: string): string {
  return text.replace(KEY_PATTERN, (k) => `pmk_…${decodeURIComponent(k).slice(-4)}`);
}

/** Whether `text` holds a premia API key, as redactKeysIn finds them. */
export function holdsKey(text: string): boolean {
  KEY_PATTERN.lastIndex = 0;
  const found = KEY_PATTERN.test(text);
  KEY_PATTERN.lastIndex = 0;
  return found;
}

/** A key as it may be shown: the last 4 characters of a key longer than 8, nothing of a shorter one. */
export function maskKey(key: string): string {
  return key.length > 8 ? `…${key.slice(-4)}` : '…';
}

/**
 * The text with every occurrence of the key (as is, or URL-encoded) replaced by its mask, and
 * every piece of it that begins as the key does, FRAGMENT_MIN characters or more (a server that
 * echoes a key cut short: `unknown key pmk_86jV8JHnXCH1…`), replaced by the mask too.
 */
export function redactText(text: string, key: string | undefined): string {
  if (!key) return text;
  const mask = maskKey(key);
  // The encoded form first: it may begin as the key does and go on differently (`%2B` for `+`).
  const encoded = encodeURIComponent(key);
  return redactStarts(encoded === key ? text : text.split(encoded).join(mask), key, mask);
}

/**
 * The shortest start of a key taken for the key when it comes alone: 10 characters (premia's
 * `pmk_` and 6 of its 40 random ones; a third-party key's prefix and a few more).
 */
const FRAGMENT_MIN = 10;

/**
 * `text` with each run that begins as `key` does replaced by `mask`: its first FRAGMENT_MIN
 * characters (the whole key, when shorter) and as many more of the key as follow.
 */
function redactStarts(text: string, key: string, mask: string): string {
  const head = key.slice(0, FRAGMENT_MIN);
  let out = '';
  let from = 0;
  for (let at = text.indexOf(head); at >= 0; at = text.indexOf(head, from)) {
    let n = head.length;
    while (n < key.length && text[at + n] === key[n]) n++;
    out += text.slice(from, at) + mask;
    from = at + n;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** The shortest configured key redactGivenKeys looks for: a shorter one could blank out ordinary words (and shows nothing of itself elsewhere). */
const GIVEN_KEY_MIN = 9;

/**
 * `text` with each of these keys (the API keys configured for a run: --api-key, PREMIA_API_KEY,
 * a profile's), as is or URL-encoded, shown as premia shows a key: its last 4 characters
 * (`…3456`). A key of any form, given where something else belonged (`--base-url sk_live_…`),
 * is then never printed whole; premia's own `pmk_` keys are found by redactKeysIn besides.
 */
export function redactGivenKeys(text: string, keys: Iterable<string>): string {
  let out = text;
  const sorted = [...keys].map((k) => k.trim()).filter((k) => k.length >= GIVEN_KEY_MIN).sort((a, b) => b.length - a.length);
  for (const key of sorted) out = redactText(out, key);
  return out;
}
