/**
 * The outline of a JSON report read as it streams (backend/remote/json-outline.ts): the report's
 * own members tell a paged answer, the rows' fields never do, however the body is split.
 */
import { describe, expect, it } from 'vitest';
import { JsonOutline, pagedAnswer } from '../../src/backend/remote/json-outline.js';

function outline(text: string, size: number): JsonOutline {
  const o = new JsonOutline();
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) o.write(bytes.subarray(i, i + size));
  return o;
}

describe('JsonOutline', () => {
  it.each([1, 2, 3, 7, 4096])('split every %i bytes: the same outline', (size) => {
    const rows = '[{"a":"x\\"y\\\\","next":"z","total_count":9,"n":[1,2,{"has_more":true}]},{"s":"}]{[\\"ü"}]';
    const paged = outline(`{"period_month":"2026-11","results":${rows},"pagination":{"page":1,"total_pages":2}}`, size);
    expect(paged.results).toBe(2);
    expect(pagedAnswer(paged)).toBe('page 1 of 2, by its pagination.total_pages');
    const whole = outline(`{"results":${rows},"has_more":false,"next":"c","meta":{"total":2}}`, size);
    expect(whole.results).toBe(2);
    expect(whole.fields).toEqual([
      { within: null, key: 'results', value: {} },
      { within: null, key: 'has_more', value: false },
      { within: null, key: 'next', value: 'c' },
      { within: null, key: 'meta', value: {} },
      { within: 'meta', key: 'total', value: 2 },
    ]);
    expect(pagedAnswer(whole)).toBeNull();
    expect(pagedAnswer(outline('{"results":[],"_links":{"next":{"href":"/v1/x?page=2"}}}', size))).toBe('has_more / a next cursor');
  });
});
