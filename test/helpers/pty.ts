/**
 * The built CLI on a real pseudo-terminal (through python3's pty module, see pty-run.py): what
 * a user at a terminal sees, typed keys, and Ctrl-C as the terminal delivers it (a SIGINT to
 * the process). Waits are event-driven: each one ends when the text appears, or fails after a
 * generous timeout showing the screen so far.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { REPO } from './cli.js';

const HELPER = join(REPO, 'test', 'helpers', 'pty-run.py');
export const BIN = join(REPO, 'bin', 'premia.js');

/** Why pseudo-terminal tests cannot run here, or null when they can. */
export function ptyUnavailable(): string | null {
  const probe = spawnSync('python3', ['-c', 'import pty, termios, fcntl, select'], { encoding: 'utf8' });
  if (probe.error) return `python3 is not available (${(probe.error as NodeJS.ErrnoException).code})`;
  if (probe.status !== 0) return `python3 has no pty support: ${probe.stderr.trim()}`;
  return null;
}

export interface Ended {
  code: number | null;
  signal: number | null;
  /** Everything shown on the terminal, escape sequences removed. */
  screen: string;
}

export interface Terminal {
  /** What the terminal has shown so far, escape sequences removed. */
  screen(): string;
  /** What the command wrote to the terminal so far, escape sequences and all. */
  raw(): string;
  /** Resolves when the screen (from `from` on) matches; rejects after `timeoutMs` with the screen. */
  waitFor(pattern: RegExp, options?: { timeoutMs?: number; from?: number }): Promise<RegExpMatchArray>;
  /** Type at the keyboard ('\x03' is Ctrl-C). */
  type(keys: string): void;
  ended: Promise<Ended>;
}

/**
 * Run `node bin/premia.js ...args` on a 120-column pseudo-terminal (an `env` value of undefined
 * unsets the variable); `typedAhead` is typed before the command starts, waiting in the terminal's
 * input queue as keys typed with the command do.
 */
export function premiaOnTerminal(args: string[], options: { cwd: string; env?: Record<string, string | undefined>; typedAhead?: string }): Terminal {
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', TERM: 'xterm-256color', ...options.env, PTY_TYPED_AHEAD: options.typedAhead };
  for (const name of Object.keys(env)) if (env[name] === undefined) delete env[name];
  const child = spawn('python3', [HELPER, process.execPath, BIN, ...args], {
    cwd: options.cwd,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  let status = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    raw += chunk;
    for (const w of [...waiters]) w();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (status += chunk));
  const screen = () => stripVTControlCharacters(raw).replace(/\r/g, '');
  let closed = false;
  const ended = new Promise<Ended>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => {
      closed = true;
      for (const w of [...waiters]) w();
      const last = status.trim().split('\n').pop() ?? '';
      let how: { code?: number; signal?: number };
      try {
        how = JSON.parse(last) as { code?: number; signal?: number };
      } catch {
        reject(new Error(`the pty helper did not report how the command ended: ${status}`));
        return;
      }
      resolve({ code: how.code ?? null, signal: how.signal ?? null, screen: screen() });
    });
  });
  return {
    screen,
    raw: () => raw,
    type(keys) {
      child.stdin.write(keys);
    },
    ended,
    waitFor(pattern, { timeoutMs = 60_000, from = 0 } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = screen().slice(from).match(pattern);
          if (m) {
            done();
            resolve(m);
          } else if (closed) {
            done();
            reject(new Error(`the command ended before ${pattern} appeared; the screen:\n${screen()}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${pattern} did not appear within ${timeoutMs} ms; the screen:\n${screen()}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}
