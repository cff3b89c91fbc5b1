/** allPages (src/cli/output/list.ts): every page of a list, and an end however a server marks it. */
import { describe, expect, it } from 'vitest';
import { allPages } from '../../src/cli/output/list.js';
import type { PremiaError } from '../../src/domain/errors.js';

async function collect(fetch: Parameters<typeof allPages<number>>[0], after?: string): Promise<{ pages: number[][]; asked: Array<string | undefined> }> {
  const asked: Array<string | undefined> = [];
  const pages: number[][] = [];
  for await (const page of allPages<number>(async (a) => {
    asked.push(a);
    return fetch(a);
  }, after)) {
    pages.push([...page]);
  }
  return { pages, asked };
}

describe('allPages', () => {
  const book = Array.from({ length: 25 }, (_, i) => i + 1);
  /** Pages of 10 after the item `after` names, with next_after the last item's, null at the end. */
  const paged = async (after: string | undefined) => {
    const from = after === undefined ? 0 : book.indexOf(Number(after)) + 1;
    const data = book.slice(from, from + 10);
    return { data, next_after: from + 10 < book.length ? String(data[data.length - 1]) : null };
  };

  it('asks for the page after each last item until next_after is null', async () => {
    const { pages, asked } = await collect(paged);
    expect(pages).toEqual([book.slice(0, 10), book.slice(10, 20), book.slice(20)]);
    expect(asked).toEqual([undefined, '10', '20']);
  });

  it('starts after the given item', async () => {
    const { pages, asked } = await collect(paged, '12');
    expect(pages).toEqual([book.slice(12, 22), book.slice(22)]);
    expect(asked).toEqual(['12', '22']);
  });

  it('a server that gives no next_after, the same one again, or an empty page has no more', async () => {
    expect((await collect(async () => ({ data: [1, 2] }))).asked).toEqual([undefined]);
    expect((await collect(async () => ({ data: [1, 2], next_after: 'x' }), 'x')).asked).toEqual(['x']);
    expect((await collect(async () => ({ data: [], next_after: 'y' }))).pages).toEqual([[]]);
    // An empty cursor points nowhere (asked for, a server reads it as none: the first page again).
    expect((await collect(async () => ({ data: [1, 2], next_after: '' }))).asked).toEqual([undefined]);
  });

  it('pages that go round in a circle are an error, not a list cut short or one without end', async () => {
    const asked: Array<string | undefined> = [];
    const circle = async (after: string | undefined) => {
      asked.push(after);
      return { data: [asked.length], next_after: after === 'a' ? 'b' : 'a' };
    };
    const failed = await collect(circle).then(
      () => null,
      (e: PremiaError) => [e.code, e.message],
    );
    expect(failed).toEqual(['REMOTE_ERROR', 'The list\'s pages go round in a circle: the page after "b" points back to "a", asked for before; the list is incomplete.']);
    expect(asked).toEqual([undefined, 'a', 'b']);
  });
});
