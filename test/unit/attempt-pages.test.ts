/** `collections attempts --fields` reads the CSV export a page at a time (attemptPages), exact. */
import { describe, expect, it } from 'vitest';
import { attemptPages } from '../../src/cli/commands/collections/attempts.js';
import type { PremiaError } from '../../src/domain/errors.js';

const HEADER = 'collection_id,policy_number,customer_id,date,amount,outcome,failure_reason\n';

/** `text` in chunks of `size` bytes, as a download's body comes (a chunk may end inside a line). */
async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function pages(text: string, size = 4093) {
  const out = [];
  for await (const page of attemptPages(chunks(text, size))) out.push(page);
  return out;
}

describe('attemptPages', () => {
  it('gives the rows as attempts in pages of 10,000 and the rest of a chunk, amounts in cents, an empty reason null', async () => {
    let csv = HEADER;
    for (let i = 0; i < 25_001; i++) csv += i % 2 === 0 ? `c${i},P-${i},C${i},2026-11-02,${i}.05,SUCCESS,\n` : `c${i},P-${i},C${i},2026-11-03,0.99,FAILED,INSUFFICIENT_FUNDS\n`;
    const got = await pages(csv);
    // A page ends with the chunk that fills it: at most a chunk's ~100 rows past 10,000.
    expect(got).toHaveLength(3);
    for (const page of got.slice(0, 2)) expect([page.length >= 10_000, page.length < 10_100]).toEqual([true, true]);
    const all = got.flat();
    expect(all).toHaveLength(25_001);
    expect(all[0]).toEqual({ collection_id: 'c0', policy_number: 'P-0', customer_id: 'C0', date: '2026-11-02', amount: 5, outcome: 'SUCCESS', failure_reason: null });
    expect(all[1]).toEqual({ collection_id: 'c1', policy_number: 'P-1', customer_id: 'C1', date: '2026-11-03', amount: 99, outcome: 'FAILED', failure_reason: 'INSUFFICIENT_FUNDS' });
    expect(all.at(-1)).toEqual({ collection_id: 'c25000', policy_number: 'P-25000', customer_id: 'C25000', date: '2026-11-02', amount: 2_500_005, outcome: 'SUCCESS', failure_reason: null });
  });

  it('gives no page for an export of no attempts', async () => {
    expect(await pages(HEADER)).toEqual([]);
  });

  it("refuses another server's export whose header or rows are not the attempts'", async () => {
    const failure = (text: string) => pages(text).then(
      () => null,
      (e: PremiaError) => [e.code, e.message],
    );
    expect(await failure('policy_number,amount\nP-1,1.00\n')).toEqual(['REMOTE_ERROR', "The attempts export cannot be read: its header is 'policy_number,amount', not 'collection_id,policy_number,customer_id,date,amount,outcome,failure_reason'."]);
    expect(await failure(`${HEADER}c1,P-1,C1,2026-11-02,1.00,SUCCESS,\nc2,P-2,C2,2026-11-02,one,SUCCESS,\n`)).toEqual(['REMOTE_ERROR', 'The attempts export cannot be read: line 3 is not an attempt.']);
  });
});
