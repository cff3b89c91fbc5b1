/**
 * When an advance fixes the C allocator's mmap threshold (lib/memory.ts, issue 13): a SQLite
 * store's engine does it as it hands days to its day writer (the days whose buffers are large),
 * and a day it commits itself (a cron job's light day) starts without loading the allocator's
 * library at all.
 */
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { LocalBackend } from '../../src/backend/local/index.js';
import { keepLargeBuffersMapped } from '../../src/lib/memory.js';
import { engineStore } from '../../src/store/repos/engine.js';
import { tempDir } from '../helpers/cli.js';
import { fixtureMonth, localBackend } from '../helpers/local.js';

vi.mock('../../src/lib/memory.js', async (original) => ({
  ...(await original<typeof import('../../src/lib/memory.js')>()),
  keepLargeBuffersMapped: vi.fn(() => 'none' as const),
}));

const tmp = tempDir('premia-allocator-');
afterAll(() => tmp.cleanup());
const open: LocalBackend[] = [];
afterEach(async () => {
  delete process.env.PREMIA_DAY_WRITER;
  vi.mocked(keepLargeBuffersMapped).mockClear();
  for (const b of open.splice(0)) await b.close();
});

async function book(name: string): Promise<LocalBackend> {
  const b = await localBackend({ path: join(tmp.dir, `${name}.db`), seed: 1 });
  open.push(b);
  await fixtureMonth(b, { advance: false });
  return b;
}

describe("the allocator's mmap threshold", () => {
  it('is left alone by days the engine commits itself, the advance as it was', async () => {
    process.env.PREMIA_DAY_WRITER = '0';
    const b = await book('plain');
    const month = await b.advanceClock({ to: '2026-11-30' });
    expect(month.days).toHaveLength(30);
    expect(month.days.reduce((n, d) => n + d.attempts, 0)).toBe(543);
    expect(keepLargeBuffersMapped).not.toHaveBeenCalled();
  });

  it('is fixed when the days are handed to the day writer', async () => {
    process.env.PREMIA_DAY_WRITER = '1';
    const b = await book('handed');
    if (b.store.kind !== 'sqlite') throw new Error('a SQLite store is expected');
    const engine = engineStore(b.store);
    expect(await engine.beginDays(2, true)).toBe(true);
    expect(keepLargeBuffersMapped).toHaveBeenCalledTimes(1);
    await engine.endDays();
    // Not asked to hand them over: nothing fixed.
    const again = engineStore(b.store);
    expect(await again.beginDays(2, false)).toBe(false);
    await again.endDays();
    expect(keepLargeBuffersMapped).toHaveBeenCalledTimes(1);
  });
});
