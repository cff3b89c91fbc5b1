/** Run `node bin/premia.js …` as a child process (the real launcher on dist/). */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from '../helpers/cli.js';

export const BIN = join(REPO, 'bin', 'premia.js');

export interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function premiaBin(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; nodeArgs?: string[]; stdin?: string } = { cwd: REPO },
): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, ...options.env };
    // The child decides colour from its own streams (pipes here), not from the test runner.
    delete env.FORCE_COLOR;
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...args], { cwd: options.cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
