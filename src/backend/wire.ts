/**
 * Wire conventions of the /v1 API shared by the server, the remote client and local
 * --idempotency-key: what makes two requests "the same" for an Idempotency-Key.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted, so that the same body hashes the same however it was written. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonical(obj[k])}`)
    .join(',')}}`;
}

/** Hash of what makes two requests "the same": method, path, and the body (or the uploaded file's hash). */
export function requestHash(method: string, path: string, body: unknown, fileSha256?: string): string {
  const h = createHash('sha256');
  h.update(`${method}\n${path}\n`);
  h.update(fileSha256 !== undefined ? `file:${fileSha256}` : `json:${canonical(body ?? null)}`);
  return h.digest('hex');
}
