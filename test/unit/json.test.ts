import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MONEY_FIELDS, moneyToCents, stringifyJson } from '../../src/domain/json.js';

describe('stringifyJson', () => {
  it('writes money fields as numbers with exactly two decimals', () => {
    expect(stringifyJson({ collection_amount: 14950 })).toBe('{"collection_amount":149.50}');
    expect(stringifyJson({ collection_amount: 100 })).toBe('{"collection_amount":1.00}');
    expect(stringifyJson({ collection_amount: 5 })).toBe('{"collection_amount":0.05}');
    expect(stringifyJson({ vat: 0 })).toBe('{"vat":0.00}');
    expect(stringifyJson({ shortfall: -1234 })).toBe('{"shortfall":-12.34}');
    expect(stringifyJson({ total_collections: 100_000_000_000 })).toBe('{"total_collections":1000000000.00}');
  });

  it('leaves other numbers as JSON.stringify writes them', () => {
    expect(stringifyJson({ imported: 520, failed: 0, rate: 0.25, row: 3 })).toBe('{"imported":520,"failed":0,"rate":0.25,"row":3}');
  });

  it('finds money fields in nested objects and arrays, and in arrays under a money key', () => {
    const value = {
      data: [
        { policy_number: 'P1', collection_amount: 14950, amount_history: [{ old_amount: 14950, new_amount: 21000, effective_period: '2026-12' }] },
        { policy_number: 'P2', collection_amount: 1 },
      ],
      summary: { due: 14951, collected: 0, count: 2 },
      amount: [100, 2],
      next_after: null,
    };
    expect(stringifyJson(value)).toBe(
      '{"data":[{"policy_number":"P1","collection_amount":149.50,"amount_history":[{"old_amount":149.50,"new_amount":210.00,"effective_period":"2026-12"}]},' +
        '{"policy_number":"P2","collection_amount":0.01}],"summary":{"due":149.51,"collected":0.00,"count":2},"amount":[1.00,0.02],"next_after":null}',
    );
  });

  it('an object under a money key is not money itself; its own fields decide', () => {
    expect(stringifyJson({ amount: { count: 3, vat: 15 } })).toBe('{"amount":{"count":3,"vat":0.15}}');
  });

  it('skips undefined and function values in objects, and writes them as null in arrays', () => {
    expect(stringifyJson({ a: undefined, b: 1, f: () => 1, c: null })).toBe('{"b":1,"c":null}');
    expect(stringifyJson([undefined, 1, null])).toBe('[null,1,null]');
    expect(stringifyJson({ only: undefined })).toBe('{}');
  });

  it('writes strings, booleans, dates and non-finite numbers like JSON.stringify', () => {
    expect(stringifyJson({ s: 'a"b\\c\n', t: true, f: false, d: new Date(0), n: Number.NaN, i: Infinity })).toBe(
      '{"s":"a\\"b\\\\c\\n","t":true,"f":false,"d":"1970-01-01T00:00:00.000Z","n":null,"i":null}',
    );
    expect(stringifyJson('x')).toBe('"x"');
    expect(stringifyJson(null)).toBe('null');
    expect(stringifyJson(undefined)).toBe('null');
  });

  it('a money field with null or a string stays as it is', () => {
    expect(stringifyJson({ collection_amount: null, amount: 'n/a' })).toBe('{"collection_amount":null,"amount":"n/a"}');
  });

  it('refuses a money field that is not whole cents', () => {
    expect(() => stringifyJson({ collection_amount: 149.5 })).toThrow(RangeError);
  });

  it('agrees with JSON.stringify on documents without money fields', () => {
    const noMoney = fc.jsonValue().filter((v) => !JSON.stringify(v).match(new RegExp(`"(${[...MONEY_FIELDS].join('|')})":`)));
    fc.assert(
      fc.property(noMoney, (v) => {
        expect(stringifyJson(v)).toBe(JSON.stringify(v));
      }),
      { numRuns: 500 },
    );
  });
});

describe('moneyToCents', () => {
  it('turns money fields of parsed JSON back into cents, recursively, in place', () => {
    const parsed = JSON.parse(
      '{"collection_amount":149.50,"imported":3,"data":[{"amount":0.29},{"amount":1234567.89}],"amount":[1.00,0.02],"summary":{"vat":-0.05},"rate":0.25}',
    );
    const result = moneyToCents(parsed);
    expect(result).toBe(parsed);
    expect(result).toEqual({
      collection_amount: 14950,
      imported: 3,
      data: [{ amount: 29 }, { amount: 123456789 }],
      amount: [100, 2],
      summary: { vat: -5 },
      rate: 0.25,
    });
  });

  it('reads money written as a string and leaves null alone', () => {
    expect(moneyToCents({ collection_amount: '1.50', vat: null })).toEqual({ collection_amount: 150, vat: null });
  });

  it('refuses a money value with more than two decimals', () => {
    expect(() => moneyToCents({ collection_amount: 0.001 })).toThrow(TypeError);
  });

  it('is the inverse of stringifyJson for every amount of cents', () => {
    const cents = fc.integer({ min: -100_000_000_000_000, max: 100_000_000_000_000 });
    fc.assert(
      fc.property(cents, cents, fc.array(cents, { maxLength: 5 }), (a, b, list) => {
        const value = { collection_amount: a, nested: { vat: b, count: 7 }, rows: list.map((amount) => ({ amount })) };
        expect(moneyToCents(JSON.parse(stringifyJson(value)))).toEqual(value);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('showValue (a value quoted in an error message)', () => {
  it('quotes strings and scalars, names lists and objects, and never recurses into them', async () => {
    const { showValue } = await import('../../src/domain/show.js');
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: [deep] };
    expect(showValue(deep)).toBe('an object');
    expect(showValue([deep])).toBe('a list');
    expect(showValue('2026-13')).toBe('"2026-13"');
    expect(showValue('x'.repeat(100))).toBe(`"${'x'.repeat(59)}…`);
    expect(showValue(12.5)).toBe('12.5');
    expect(showValue(true)).toBe('true');
    expect(showValue(null)).toBe('null');
  });
});
