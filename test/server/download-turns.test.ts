/**
 * A download is streamed a chunk at a time with the event loop getting a turn between chunks
 * (src/server/http.ts, sendDownload): a report's pages are read from SQLite synchronously, and a
 * client reading fast never makes the socket wait, so without those turns one client's 100k-row
 * report held every other client's request until its last byte. A stand-in download whose chunks
 * come without any wait counts the turns the loop had (setImmediate callbacks) while it was sent.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { sendDownload } from '../../src/server/http.js';

const CHUNKS = 40;
const CHUNK = 'x'.repeat(64 * 1024);

describe('a streamed download', () => {
  it('gives the event loop a turn between its chunks, so other requests are answered meanwhile', async () => {
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns++;
      if (counting) setImmediate(tick);
    };
    /** The turns the loop had when each chunk was asked for. */
    const seen: number[] = [];
    async function* body(): AsyncGenerator<string> {
      for (let i = 0; i < CHUNKS; i++) {
        seen.push(turns);
        yield CHUNK;
      }
    }
    const app = Fastify();
    app.get('/report', async (_request, reply) => {
      setImmediate(tick);
      return sendDownload(reply, { filename: 'report.csv', contentType: 'text/csv; charset=utf-8', body: body() });
    });
    const res = await app.inject({ method: 'GET', url: '/report' });
    counting = false;
    await app.close();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe('attachment; filename="report.csv"');
    expect(res.rawPayload.length).toBe(CHUNKS * CHUNK.length);
    // Between any two chunks the loop ran at least once.
    for (let i = 2; i < CHUNKS; i++) expect(seen[i]!, `turns before chunk ${i}`).toBeGreaterThan(seen[i - 1]!);
  });
});
