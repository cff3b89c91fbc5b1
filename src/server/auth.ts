/**
 * Who a request acts for, and what its key may not do. Keys are the local backend's (its admin
 * object); a source address that fails too often is answered 401 with Retry-After before its key
 * is looked up.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Admin, Principal } from '../backend/types.js';
import { PremiaError } from '../domain/errors.js';
import { plural } from '../domain/words.js';
import type { FailedAuthLimiter } from './auth-limit.js';

/** The challenge of a 401 (RFC 9110 §11.6.1): the key goes in the X-API-Key header. */
export const WWW_AUTHENTICATE = 'ApiKey realm="premia", header="X-API-Key"';

/** What a client key gets on the clock and bank endpoints (403). */
const FORBIDDEN_MESSAGE =
  'This needs an operator key: the virtual clock and the simulated bank belong to the whole store, so a client key may only read the clock. ' +
  "The operator makes one with 'premia keys create --operator'.";

export function forbidden(): PremiaError {
  return new PremiaError('FORBIDDEN', FORBIDDEN_MESSAGE);
}

/** 429, with the seconds to wait (the Retry-After header). */
export class RateLimited extends PremiaError {
  constructor(
    readonly retryAfter: number,
    what = 'Too many requests for this API key',
  ) {
    super('RATE_LIMITED', `${what}; retry after ${plural(retryAfter, 'second')}.`);
  }
}

/**
 * 401 for a key refused unseen because its address failed too often (auth-limit.ts), with the
 * seconds until the address's window ends (the Retry-After header). 401 and not 429: the spec
 * answers a missing or invalid key with 401, and most keys refused here are exactly that.
 */
export class AuthBlocked extends PremiaError {
  constructor(readonly retryAfter: number) {
    super(
      'UNAUTHORIZED',
      `Too many requests with a missing or invalid API key from this address: only keys that have worked from it before are accepted for ${plural(retryAfter, 'second')} more.`,
    );
  }
}

/** The seconds a refused request is told to wait (its Retry-After header), or null. */
export function retryAfterOf(e: unknown): number | null {
  return e instanceof RateLimited || e instanceof AuthBlocked ? e.retryAfter : null;
}

/**
 * The principal of a request's key. An address with too many failed authentications in the
 * window is answered 401 before its key is looked up (unless the key worked from it before).
 */
export function authenticator(admin: Admin, limiter: FailedAuthLimiter | null): (request: FastifyRequest) => Promise<Principal> {
  return async (request) => {
    const presented = request.headers['x-api-key'];
    if (!limiter) return admin.keys.authenticate(presented);
    const address = request.ip;
    // Only a digest of a key that worked is remembered (in memory), never the key.
    const digest = typeof presented === 'string' && presented.length > 0 && presented.length <= 256 ? createHash('sha256').update(presented, 'utf8').digest('hex') : null;
    const wait = limiter.blocked(address, digest);
    if (wait !== null) throw new AuthBlocked(wait);
    try {
      const principal = await admin.keys.authenticate(presented);
      limiter.succeeded(address, digest!);
      return principal;
    } catch (e) {
      if (e instanceof PremiaError && e.code === 'UNAUTHORIZED') limiter.failed(address);
      throw e;
    }
  };
}
