/**
 * The service's base URL as premia takes it (--base-url, PREMIA_BASE_URL, a profile): checked as
 * soon as it is known, before any message quotes it, so that a password written into it is
 * refused rather than printed. Imports no HTTP stack: the CLI checks it before loading one.
 */
import { PremiaError } from '../../domain/errors.js';

/** `text` with any user-info of a URL in it (`//user:password@`) shown as `//***@`. */
function withoutUserInfo(text: string): string {
  return text.replace(/\/\/[^/?#\s]*@/g, '//***@');
}

/** A base URL must be http(s), without credentials, query or fragment. */
export function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new PremiaError('VALIDATION_ERROR', `'${withoutUserInfo(text.slice(0, 200))}' is not a URL; give the service's base URL, e.g. http://127.0.0.1:8080/v1.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PremiaError('VALIDATION_ERROR', `The base URL must start with http:// or https://; got '${url.protocol}'.`);
  }
  if (url.username || url.password) {
    throw new PremiaError(
      'VALIDATION_ERROR',
      `The base URL must not contain a user name or password (${withoutUserInfo(url.href)}); the API key goes in PREMIA_API_KEY or a profile.`,
    );
  }
  if (url.search || url.hash) throw new PremiaError('VALIDATION_ERROR', 'The base URL must not have a query string or fragment.');
  return url;
}
