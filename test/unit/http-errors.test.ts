/** The service's answer to premia's own server-side failures (src/server/http.ts toPremiaError): what a caller can act on, nothing of the internals. */
import { describe, expect, it } from 'vitest';
import { PremiaError } from '../../src/domain/errors.js';
import { toPremiaError } from '../../src/server/http.js';

const ctx = { jsonLimit: 1024, uploadLimit: 4096 };

describe('toPremiaError', () => {
  it('a database out of reach: 503 STORE_UNAVAILABLE saying so, without the driver\'s words', () => {
    const { error, internal } = toPremiaError(new PremiaError('STORE_UNAVAILABLE', 'Cannot connect to the PostgreSQL server at db.internal:5432: connection refused.'), ctx);
    expect(internal).toBe(true);
    expect([error.code, error.status]).toEqual(['STORE_UNAVAILABLE', 503]);
    expect(error.message).toBe(
      'The service cannot reach its database just now. What this request had committed before stays (an advance keeps the days it lived: GET /clock shows the date reached; ' +
        "resume it with a date, not a number of days); nothing more was done. Try again shortly (the operator's log has the details under this request id).",
    );
  });

  it("a store the server cannot write: 503 STORE_UNAVAILABLE, not the CLI's 400, and not its path", () => {
    const readOnly = new PremiaError('VALIDATION_ERROR', 'The store /srv/premia/prod.db cannot be written by this user: … Nothing was changed.', {
      details: [{ field: 'db', code: 'STORE_READ_ONLY', message: '/srv/premia/prod.db is read-only for this user' }],
    });
    const { error, internal } = toPremiaError(readOnly, ctx);
    expect(internal).toBe(true);
    expect([error.code, error.status, error.details]).toEqual(['STORE_UNAVAILABLE', 503, undefined]);
    expect(error.message).toBe(
      "The service cannot write to its store just now (a problem of the service's set-up, not of this request); nothing was changed. " +
        "Try again later (the operator's log has the details under this request id).",
    );
  });

  it('a busy store and any other failure keep their own words', () => {
    expect(toPremiaError(new PremiaError('STORE_BUSY', 'database is locked'), ctx).error.message).toBe('The store is busy (another process holds it); try again shortly.');
    const other = toPremiaError(new PremiaError('INTERNAL', 'TypeError: x is undefined'), ctx);
    expect([other.error.code, other.error.message]).toEqual(['INTERNAL', 'The service failed unexpectedly; the error was logged with this request id.']);
  });

  it("a client that went away mid-body (Node's 'aborted') is the client's doing: not internal, INCOMPLETE", () => {
    const { error, internal } = toPremiaError(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }), ctx);
    expect(internal).toBe(false);
    expect([error.code, error.status, error.details]).toEqual(['VALIDATION_ERROR', 400, [{ field: 'file', code: 'INCOMPLETE', message: 'the multipart body ended early' }]]);
  });
});
