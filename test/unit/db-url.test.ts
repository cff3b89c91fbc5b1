/**
 * A PostgreSQL URL's password never shown (src/lib/db-url.ts): written plainly, percent-encoded,
 * unencoded with `@`, `/`, `:` or a space (the driver reads the user-info up to the last `@`), as a
 * parameter, and in the driver's messages about a mistyped URL.
 */
import { describe, expect, it } from 'vitest';
import { foreignUrlProblem, isStoreFile, redactDbUrl, scrubDbSecret } from '../../src/lib/db-url.js';
import { pgSettings, tooOldServer } from '../../src/store/pg-store.js';

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
    ['postgres://weird:p@ss/w%rd x@127.0.0.1:55731/weirddb', "The user name or password in postgres://weird:***@127.0.0.1:55731/weirddb holds a character that must be percent-encoded ('/' as %2F, '?' as %3F, '#' as %23, a '%' that starts no escape as %25); the password is not shown."],
    ['postgres://u:pa%zz@127.0.0.1:5432/db', "The user name or password in postgres://u:***@127.0.0.1:5432/db holds a character that must be percent-encoded ('/' as %2F, '?' as %3F, '#' as %23, a '%' that starts no escape as %25); the password is not shown."],
    // A '?' or '#' in the password: the driver would end the host there and take a piece of it for one.
    ['postgres://spec:p@ss/w:rd%?#&x@127.0.0.1:55432/sdb', "The user name or password in postgres://spec:***@127.0.0.1:55432/sdb holds a character that must be percent-encoded ('/' as %2F, '?' as %3F, '#' as %23, a '%' that starts no escape as %25); the password is not shown."],
    ['postgres://u:pa?ss@127.0.0.1:5432/db', "The user name or password in postgres://u:***@127.0.0.1:5432/db holds a character that must be percent-encoded ('/' as %2F, '?' as %3F, '#' as %23, a '%' that starts no escape as %25); the password is not shown."],
    ['postgres://u:secret@127.0.0.1:5432/db?sslmode=bogus', 'sslmode must be one of disable, require, verify-ca, verify-full, no-verify; got "bogus" (in postgres://u:***@127.0.0.1:5432/db?sslmode=bogus).'],
    ['postgres://u:secret@127.0.0.1:5432/db?sslmode=prefer', 'sslmode=prefer (TLS if the server offers it, else a plain connection) is not available: the PostgreSQL driver premia uses cannot fall back from one to the other. Give sslmode=require (or verify-ca, verify-full) for TLS, or sslmode=disable (in postgres://u:***@127.0.0.1:5432/db?sslmode=prefer).'],
    ['postgres://u@h/db?sslmode=allow', 'sslmode=allow (TLS if the server offers it, else a plain connection) is not available'],
    ['postgres://u@h/db?pool=0', 'pool (?pool= or PREMIA_DB_POOL) must be a whole number from 1 to 262143; got "0" (in postgres://u@h/db?pool=0).'],
    // A misspelt parameter would be ignored: a connection without TLS, the default pool.
    ['postgres://u:secret@h/db?sslmod=require', 'postgres://u:***@h/db?sslmod=require has a parameter "sslmod", which premia does not know: did you mean sslmode?'],
    ['postgres://u@h/db?ssl_mode=verify-full', 'has a parameter "ssl_mode", which premia does not know: did you mean sslmode?'],
    ['postgres://u@h/db?pol=4', 'has a parameter "pol", which premia does not know: did you mean pool?'],
    ['postgres://u@h/db?statement_timout=500', 'has a parameter "statement_timout", which premia does not know: did you mean statement_timeout?'],
  ])('%s', (url, message) => {
    expect(() => pgSettings(url, {})).toThrow(message);
  });

  it("libpq's parameters the driver does not read pass, as do others far from any premia reads", () => {
    expect(pgSettings('postgres://u@h/db?sslmode=require&sslcrl=/etc/crl.pem&target_session_attrs=any&keepalives=1&Application_Name=x', {}).client).toMatchObject({ database: 'db' });
  });

  it("an '@' in a query value is not taken for the end of a user-info", () => {
    expect(pgSettings('postgres://u:pw@h:5432/db?application_name=ops@night', {}).client).toMatchObject({ user: 'u', password: 'pw', host: 'h', database: 'db', application_name: 'ops@night' });
  });

  it('takes an unencoded @ or space in the password, and an encoded /, as the driver reads them', () => {
    expect(pgSettings('postgres://at1:my@Sec ret9@127.0.0.1:55439/atdb', {}).client).toMatchObject({ user: 'at1', password: 'my@Sec ret9', host: '127.0.0.1', port: 55439, database: 'atdb' });
    expect(pgSettings('postgres://u:p%2Fss@h:5432/db?sslmode=disable', {}).client).toMatchObject({ password: 'p/ss', host: 'h', database: 'db' });
  });
});

describe('a --db written as a URL of another kind', () => {
  it('is no file and names no store; the message shows only its scheme', () => {
    for (const db of ['postgress://premia:S3cret!pw@127.0.0.1:55432/pdb', 'postgre://u:pw@h/db', ' mysql://u:S3cret@h/db']) {
      expect(isStoreFile(db)).toBe(false);
      const problem = foreignUrlProblem(db, '--db')!;
      expect(problem.message).not.toMatch(/S3cret|pw@|premia:/);
    }
    expect(foreignUrlProblem('postgress://premia:S3cret!pw@127.0.0.1:55432/pdb', 'PREMIA_DB')).toEqual({
      message:
        'PREMIA_DB is written as a postgress:// URL, which names no store premia knows: give postgres://user@host:port/database (or postgresql://) for a PostgreSQL database, or the path of an SQLite file. The rest of the value is not shown (it may hold a password).',
      detail: { field: 'PREMIA_DB', code: 'INVALID_FORMAT', message: "postgress:// is not a store's scheme" },
    });
    for (const db of ['./premia.db', 'C:\\stores\\premia.db', ':memory:', 'postgres://u@h/db', 'POSTGRESQL://u@h/db', 'file:premia.db']) expect(foreignUrlProblem(db, '--db')).toBeNull();
  });
});

describe('the PostgreSQL server version', () => {
  it('13 and later are taken; 12, 11 and 9.6 are refused before anything is done, naming the version', () => {
    for (const v of [130000, 150004, 170002]) expect(tooOldServer(v, 'postgres://u@h:5432/db')).toBeNull();
    const refusal = (v: number) => {
      const e = tooOldServer(v, 'postgres://u@h:5432/db')!;
      return [e.code, e.message, e.details];
    };
    expect(refusal(120017)).toEqual([
      'VALIDATION_ERROR',
      'The PostgreSQL server of postgres://u@h:5432/db is version 12; premia needs PostgreSQL 13 or later (its engine reads transaction snapshots with functions 13 brought), ' +
        'so nothing was done. Upgrade the server, or use a database on a newer one.',
      [{ field: 'db', code: 'INVALID_VALUE', message: 'PostgreSQL 12, not 13 or later' }],
    ]);
    expect(refusal(110022)[2]).toEqual([{ field: 'db', code: 'INVALID_VALUE', message: 'PostgreSQL 11, not 13 or later' }]);
    expect(refusal(90624)[2]).toEqual([{ field: 'db', code: 'INVALID_VALUE', message: 'PostgreSQL 9.6, not 13 or later' }]);
  });
});
