/**
 * Operating `premia serve`: what a service operator meets (a signal from a closed terminal, the
 * store moved while serving, a slow client), with the server listening on a real socket.
 */
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLocalBackend } from '../../src/backend/local/index.js';
import { serve } from '../../src/server/serve.js';
import { tempDir } from '../helpers/cli.js';
import { NOW } from './helpers.js';

async function started(dbPath: string) {
  const backend = await openLocalBackend({ path: dbPath, now: NOW });
  const key = (await backend.admin.keys.create('Acme Life', 'client')).key;
  const signals = new EventEmitter();
  const stderr: string[] = [];
  let served!: Promise<number>;
  const base = await new Promise<string>((resolve) => {
    served = serve(backend, { host: '127.0.0.1', port: 0 }, { stderr: { write: (s: string) => stderr.push(s) } as any, signals, onListening: resolve });
  });
  return { backend, key, signals, stderr, served, base };
}

describe('premia serve, operated', () => {
  it('stops cleanly on SIGHUP (a closed terminal), saying so, rather than dying without a word', async () => {
    const tmp = tempDir();
    const s = await started(join(tmp.dir, 'premia.db'));
    try {
      expect(s.signals.listenerCount('SIGHUP')).toBe(1);
      s.signals.emit('SIGHUP');
      expect(await s.served).toBe(0);
      const log = s.stderr.join('');
      expect(log).toContain('premia: SIGHUP received (its terminal closed?); finishing requests in flight…\n');
      expect(log).toContain('premia: stopped.\n');
      expect(s.signals.listenerCount('SIGHUP')).toBe(0);
    } finally {
      await s.backend.close();
      tmp.cleanup();
    }
  });

});
