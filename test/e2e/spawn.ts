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

export interface SpawnOptions {
  cwd: string;
  env?: Record<string, string>;
  nodeArgs?: string[];
  stdin?: string;
}

/** Run a Node script as a child process; resolves with its exit code and output. */
export function nodeScript(script: string, args: string[], options: SpawnOptions): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, ...options.env };
    // The child decides colour from its own streams (pipes here), not from the test runner.
    delete env.FORCE_COLOR;
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...args], { cwd: options.cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

export function premiaBin(args: string[], options: SpawnOptions = { cwd: REPO }): Promise<Spawned> {
  return nodeScript(BIN, args, options);
}
