/**
 * reportError is the one place an error becomes an exit code and error output. Commands reach
 * most codes (see test/cli); the ones no command can reach yet (authentication, a cancelled
 * prompt, an unexpected crash) are checked here directly.
 */
import { CommanderError } from 'commander';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../src/cli/context.js';
import type { GlobalOptions } from '../../src/cli/context.js';
import { reportError } from '../../src/cli/main.js';
import { PremiaError } from '../../src/domain/errors.js';

function report(e: unknown, globals: GlobalOptions = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const ctx = createContext({ stdout, stderr, stdin: Readable.from([]), env: {} });
  const code = reportError(ctx, globals, e);
  return { code, stdout: out, stderr: err };
}

describe('reportError', () => {
  it('an authentication failure is exit 4', () => {
    const r = report(new PremiaError('UNAUTHORIZED', 'The API key was refused. Check PREMIA_API_KEY.'));
    expect(r).toEqual({ code: 4, stdout: '', stderr: 'error: The API key was refused. Check PREMIA_API_KEY.\n  (code UNAUTHORIZED)\n' });
  });

  it('with --json the error is the API body on stderr, with the request id of a remote error', () => {
    const e = new PremiaError('UNAUTHORIZED', 'Refused.', { requestId: 'req_123' });
    const r = report(e, { json: true });
    expect(r).toEqual({ code: 4, stdout: '', stderr: '{"error":{"code":"UNAUTHORIZED","message":"Refused.","request_id":"req_123"}}\n' });
    expect(report(e).stderr).toBe('error: Refused.\n  (code UNAUTHORIZED, request req_123)\n');
  });

  it.each(['ExitPromptError', 'AbortPromptError'])('a cancelled prompt (%s) is exit 130', (name) => {
    const e = Object.assign(new Error('User force closed the prompt'), { name });
    expect(report(e)).toEqual({ code: 130, stdout: '', stderr: 'Cancelled: nothing changed.\n' });
    expect(report(e, { json: true })).toEqual({
      code: 130,
      stdout: '',
      stderr: '{"error":{"code":"CANCELLED","message":"Cancelled by the user; nothing changed.","request_id":null}}\n',
    });
  });

  it('an unexpected error is exit 1, without a stack unless --debug', () => {
    const plain = report(new TypeError('x is undefined'));
    expect(plain).toEqual({ code: 1, stdout: '', stderr: 'error: premia failed unexpectedly: x is undefined\n  (run again with --debug for details)\n' });
    const debug = report(new TypeError('x is undefined'), { debug: true });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/^error: premia failed unexpectedly: x is undefined\nTypeError: x is undefined\n\s+at /);
  });

  it('commander errors keep commander’s exit decisions: help and version are 0, the rest 2', () => {
    expect(report(new CommanderError(0, 'commander.helpDisplayed', '')).code).toBe(0);
    expect(report(new CommanderError(0, 'commander.version', '0.1.0')).code).toBe(0);
    // commander printed its own line; reportError adds the code (by the kind of mistake) and the hint.
    expect(report(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'"))).toEqual({
      code: 2,
      stdout: '',
      stderr: '  (code USAGE_ERROR; run with --help for usage)\n',
    });
    expect(report(new CommanderError(1, 'commander.invalidArgument', "error: option '--x <n>' argument 'y' is invalid."))).toEqual({
      code: 2,
      stdout: '',
      stderr: '  (code VALIDATION_ERROR; run with --help for usage)\n',
    });
  });
});
