/**
 * `text` with every premia API key in it (pmk_ and at least 8 more characters: one given where
 * something else belonged, `--base-url pmk_…`, a key pasted as an id into a URL path, or named
 * to `keys revoke`) shown as `pmk_…` and its last 4 characters: what the CLI writes on stderr
 * and what the service logs never hold a whole key (issue 1).
 */
export function redactKeysIn(text: string): string {
  return text.replace(/pmk_[A-Za-z0-9]{8,}/g, (k) => `pmk_…${k.slice(-4)}`);
}
