/**
 * A PostgreSQL URL's password never shown (src/lib/db-url.ts): written plainly, percent-encoded,
 * unencoded with `@`, `/`, `:` or a space (the driver reads the user-info up to the last `@`), as a
 * parameter, and in the driver's messages about a mistyped URL.
 */
import { describe, expect, it } from 'vitest';
import { redactDbUrl, scrubDbSecret } from '../../src/lib/db-url.js';
import { pgSettings } from '../../src/store/pg-store.js';

describe('redactDbUrl', () => {
  it.each([
    ['postgres://premia:S3cret@127.0.0.1:5432/p1', 'postgres://premia:***@127.0.0.1:5432/p1'],
    ['postgres://sp1:Sec ret9@127.0.0.1:55439/spdb', 'postgres://sp1:***@127.0.0.1:55439/spdb'],
    ['postgres://at1:my@Secret9@127.0.0.1:55439/atdb', 'postgres://at1:***@127.0.0.1:55439/atdb'],
    ['postgres://weird:p@ss:w/rd%x#?@127.0.0.1:55439/pw', 'postgres://weird:***@127.0.0.1:55439/pw'],
    ['postgresql://u:p%40ss%3Aw%2Frd@h/db', 'postgresql://u:***@h/db'],
    ['postgres://u@h/db?sslmode=require&password=S3cret', 'postgres://u@h/db?sslmode=require&password=***'],
    ['postgres://h:5432/db', 'postgres://h:5432/db'],
    ['postgres://u@h/db', 'postgres://u@h/db'],
  ])('%s', (url, shown) => {
    expect(redactDbUrl(url)).toBe(shown);
  });

  it('in a line of text, up to the last @ of the URL and no further URL', () => {
    expect(redactDbUrl('store   postgres://sp1:Sec ret9@127.0.0.1:55439/spdb')).toBe('store   postgres://sp1:***@127.0.0.1:55439/spdb');
    expect(redactDbUrl('from postgres://a:x@h/1 to postgres://b:y@z@h/2')).toBe('from postgres://a:***@h/1 to postgres://b:***@h/2');
    expect(redactDbUrl('line one postgres://a:x@h/1\nline two b@c')).toBe('line one postgres://a:***@h/1\nline two b@c');
  });
});

describe('scrubDbSecret', () => {
  it("a driver's message quoting the password, or pieces of an unencoded one it took for a host", () => {
    const url = 'postgres://premia:my@Sec/ret9@127.0.0.1:55439/p1';
    const message = scrubDbSecret('Cannot connect to the PostgreSQL server at Sec:5432/ret9@127.0.0.1:55439/p1: the host name Sec is not known.', url);
    expect(message).not.toMatch(/Sec|ret9/);
    expect(scrubDbSecret('password authentication failed: got "Sec ret9"', 'postgres://sp1:Sec ret9@h/db')).toBe('password authentication failed: got "***"');
    expect(scrubDbSecret('bad p@ss:w/rd%x#? here', 'postgres://weird:p@ss:w/rd%x#?@127.0.0.1:55439/pw')).not.toContain('rd%x');
  });
});

describe('pgSettings refuses what the driver would misread, naming no password', () => {
  it.each([
    ['postgres://weird:p@ss/w%rd x@127.0.0.1:55731/weirddb', "The user name or password in postgres://weird:***@127.0.0.1:55731/weirddb holds a character that must be percent-encoded ('/' as %2F, a '%' that starts no escape as %25); the password is not shown."],
    ['postgres://u:pa%zz@127.0.0.1:5432/db', "The user name or password in postgres://u:***@127.0.0.1:5432/db holds a character that must be percent-encoded ('/' as %2F, a '%' that starts no escape as %25); the password is not shown."],
    ['postgres://u:secret@127.0.0.1:5432/db?sslmode=bogus', 'sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full, no-verify; got "bogus" (in postgres://u:***@127.0.0.1:5432/db?sslmode=bogus).'],
  ])('%s', (url, message) => {
    expect(() => pgSettings(url, {})).toThrow(message);
  });

  it('takes an unencoded @ or space in the password, and an encoded /, as the driver reads them', () => {
    expect(pgSettings('postgres://at1:my@Sec ret9@127.0.0.1:55439/atdb', {}).client).toMatchObject({ user: 'at1', password: 'my@Sec ret9', host: '127.0.0.1', port: 55439, database: 'atdb' });
    expect(pgSettings('postgres://u:p%2Fss@h:5432/db?sslmode=disable', {}).client).toMatchObject({ password: 'p/ss', host: 'h', database: 'db' });
  });
});
