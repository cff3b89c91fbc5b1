import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyRate,
  asCents,
  centsFromJsonNumber,
  formatCents,
  parsePremium,
  parsePremiumWithDecimal,
  parseSignedAmount,
  premiumFromInput,
} from '../../src/domain/money.js';
import { compileErrors } from '../helpers/compile.js';

describe('parsePremium', () => {
  it.each([
    ['149.5', 14950],
    ['149.50', 14950],
    ['1000', 100000],
    ['0.01', 1],
    ['1000000.00', 100000000],
    ['1000000', 100000000],
    ['007.10', 710],
  ])('accepts %s as %i cents', (text, cents) => {
    expect(parsePremium(text)).toBe(cents);
    expect(parsePremiumWithDecimal(text)).toBe(cents);
  });

  it.each([
    ['-149.50', 'AMOUNT_OUT_OF_RANGE', "'-149.50' is negative; it must be greater than 0.00"],
    ['0', 'AMOUNT_OUT_OF_RANGE', "'0' must be greater than 0.00"],
    ['0.00', 'AMOUNT_OUT_OF_RANGE', "'0.00' must be greater than 0.00"],
    ['149.505', 'INVALID_AMOUNT', "'149.505' has more than two decimals"],
    ['149.500', 'INVALID_AMOUNT', "'149.500' has more than two decimals"], // trailing zeros count: three decimals written
    ['1000000.000', 'INVALID_AMOUNT', "'1000000.000' has more than two decimals"],
    ['1e3', 'INVALID_AMOUNT', "'1e3' uses exponent notation; write a plain decimal like 149.50"],
    ['1.5E2', 'INVALID_AMOUNT', "'1.5E2' uses exponent notation; write a plain decimal like 149.50"],
    ['1,000.00', 'INVALID_AMOUNT', "'1,000.00' has a thousands separator; write it without one, like 1000.00"],
    ['1 000', 'INVALID_AMOUNT', "'1 000' has a thousands separator; write it without one, like 1000.00"],
    ['149,50', 'INVALID_AMOUNT', "'149,50' uses a decimal comma; use a decimal point, like 149.50"],
    // A spreadsheet's money where the comma is the decimal mark, and its other separators: named, not "not a number".
    ['1.234,50', 'INVALID_AMOUNT', "'1.234,50' has a thousands separator and a decimal comma; write it as 1234.50"],
    ['1 234,50', 'INVALID_AMOUNT', "'1 234,50' has a thousands separator and a decimal comma; write it as 1234.50"],
    ['1\u202f234,5', 'INVALID_AMOUNT', "'1\u202f234,5' has a thousands separator and a decimal comma; write it as 1234.5"],
    ["1'234.50", 'INVALID_AMOUNT', "'1'234.50' has a thousands separator; write it without one, like 1000.00"],
    ['1\u2019234.50', 'INVALID_AMOUNT', "'1\u2019234.50' has a thousands separator; write it without one, like 1000.00"],
    ['1\u2009000', 'INVALID_AMOUNT', "'1\u2009000' has a thousands separator; write it without one, like 1000.00"],
    ['', 'REQUIRED', 'is empty; give a premium like 149.50'],
    ['abc', 'INVALID_AMOUNT', "'abc' is not a number; give a premium like 149.50"],
    ['12a', 'INVALID_AMOUNT', "'12a' is not a number; give a premium like 149.50"],
    ['.50', 'INVALID_AMOUNT', "'.50' is not a number; give a premium like 149.50"],
    ['5.', 'INVALID_AMOUNT', "'5.' is not a number; give a premium like 149.50"],
    ['+5', 'INVALID_AMOUNT', "'+5' has a plus sign; write the premium without a sign, like 149.50"],
    ['+100.00', 'INVALID_AMOUNT', "'+100.00' has a plus sign; write the premium without a sign, like 149.50"],
    // Negative as a spreadsheet's accounting format writes it: negative, as '-150.00' is.
    ['(150.00)', 'AMOUNT_OUT_OF_RANGE', "'(150.00)' is in brackets, a negative amount; it must be greater than 0.00"],
    ['150.00-', 'AMOUNT_OUT_OF_RANGE', "'150.00-' has a minus sign after the number, a negative amount; it must be greater than 0.00"],
    ['150.00+', 'INVALID_AMOUNT', "'150.00+' has a plus sign after the number; write the premium without a sign, like 149.50"],
    ['\u22125', 'INVALID_AMOUNT', "'\u22125' begins with '\u2212' (U+2212), a minus sign or dash; write the premium without a sign, like 149.50"],
    ['R100.00', 'INVALID_AMOUNT', "'R100.00' has a currency or other sign beside the number; write the number alone, like 149.50"],
    ['100 ZAR', 'INVALID_AMOUNT', "'100 ZAR' has a currency or other sign beside the number; write the number alone, like 149.50"],
    ['$ 5', 'INVALID_AMOUNT', "'$ 5' has a currency or other sign beside the number; write the number alone, like 149.50"],
    ['1000000.01', 'AMOUNT_OUT_OF_RANGE', "'1000000.01' is above the maximum premium of 1000000.00"],
    ['99999999', 'AMOUNT_OUT_OF_RANGE', "'99999999' is above the maximum premium of 1000000.00"],
    ['NaN', 'INVALID_AMOUNT', "'NaN' is not a number; give a premium like 149.50"],
    ['Infinity', 'INVALID_AMOUNT', "'Infinity' is not a number; give a premium like 149.50"],
  ])('rejects %j with %s', (text, code, message) => {
    expect(parsePremium(text)).toEqual({ code, message });
  });

  it('the fast path and the decimal.js path agree on every input', () => {
    const decimalish = fc.oneof(
      fc.stringMatching(/^[0-9]{0,9}(\.[0-9]{0,4})?$/),
      fc.string({ maxLength: 12 }),
      fc.integer({ min: 0, max: 200_000_000 }).map((c) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`),
    );
    fc.assert(
      fc.property(decimalish, (text) => {
        expect(parsePremium(text)).toEqual(parsePremiumWithDecimal(text));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('premiumFromInput (JSON numbers and flag strings)', () => {
  it.each([
    [149.5, 14950],
    [149.05, 14905],
    [1000, 100000],
    ['199.50', 19950],
    [' 12.30 ', 1230],
  ])('accepts %j', (value, cents) => expect(premiumFromInput(value)).toBe(cents));

  it.each([
    [0.1 + 0.2, 'INVALID_AMOUNT'],
    // Judged by value, whatever the form of its shortest text (1e+21, 1e-7).
    [1e21, 'AMOUNT_OUT_OF_RANGE'],
    [1e-7, 'INVALID_AMOUNT'],
    [-5, 'AMOUNT_OUT_OF_RANGE'],
    [Number.NaN, 'INVALID_AMOUNT'],
    // The wrong JSON type is INVALID_TYPE, as a string in JSON is.
    [true, 'INVALID_TYPE'],
    [null, 'REQUIRED'],
    [undefined, 'REQUIRED'],
    [{}, 'INVALID_TYPE'],
    [[1], 'INVALID_TYPE'],
  ])('rejects %j', (value, code) => expect((premiumFromInput(value) as { code: string }).code).toBe(code));
});

describe('formatCents', () => {
  it.each([
    [14950, '149.50'],
    [5, '0.05'],
    [0, '0.00'],
    [100000000, '1000000.00'],
    [-5, '-0.05'],
    [-123456, '-1234.56'],
    [100_000_000_000_000, '1000000000000.00'],
  ])('%i → %s', (cents, text) => expect(formatCents(cents)).toBe(text));

  it('refuses a non-integer', () => expect(() => formatCents(1.5)).toThrow(RangeError));
});

describe('applyRate rounds half-up to cents', () => {
  it.each([
    [123457, '0.25', 30864], // 308.6425 → 308.64
    [1, '0.25', 0], // 0.0025 → 0.00
    [2, '0.25', 1], // 0.005 → 0.01 (half-up)
    [10, '0.035', 0], // 0.0035 → 0.00
    [100, '0.035', 4], // 0.035 → 0.04 (half-up)
    [99999999, '0.25', 25000000], // 249999.9975 → 250000.00
    [123456789, '0.035', 4320988], // 43209.87615 → 43209.88
  ])('%i × %s = %i', (cents, rate, expected) => expect(applyRate(cents, rate)).toBe(expected));
});

describe('signed amounts (bank transactions)', () => {
  it.each([
    ['-1200.50', -120050],
    ['15000', 1500000],
    ['0', 0],
    ['+25.5', 2550],
  ])('%s', (text, cents) => expect(parseSignedAmount(text)).toBe(cents));
  it.each(['1.234', '1e3', 'x', '', '1,000'])('rejects %j', (text) => expect(typeof parseSignedAmount(text)).toBe('object'));
  it.each([
    ['1,000.00', "'1,000.00' has a thousands separator; write it without one, like -1200.50"],
    ['-1 234,50', "'-1 234,50' has a thousands separator and a decimal comma; write it as -1234.50"],
    ['+1.234,50', "'+1.234,50' has a thousands separator and a decimal comma; write it as 1234.50"],
    ['-1\u202f234.50', "'-1\u202f234.50' has a thousands separator; write it without one, like -1200.50"],
    ['+1\u00a0000', "'+1\u00a0000' has a thousands separator; write it without one, like -1200.50"],
    ['\u221250.00', "'\u221250.00' begins with '\u2212' (U+2212), not the minus sign '-'; write it -50.00"],
    ['\u2013 7.5', "'\u2013 7.5' begins with '\u2013' (U+2013), not the minus sign '-'; write it -7.5"],
    ['-12,50', "'-12,50' uses a decimal comma; use a decimal point, like -1200.50"],
    ['1e3', "'1e3' uses exponent notation; write a plain decimal like -1200.50"],
    ['12.5.1', "'12.5.1' is not a signed decimal amount like -1200.50"],
  ])('words %j as a premium is worded', (text, message) => expect(parseSignedAmount(text)).toEqual({ code: 'INVALID_AMOUNT', message }));
  it.each([
    ['1200.50-', "'1200.50-' has its sign after the number; write it before, like -1200.50"],
    ['(1200.50)', "'(1200.50)' is in brackets; write money out with a minus sign, like -1200.50"],
    ['1200.50 CR', "'1200.50 CR' says credit or debit in words; write money in as it is and money out with a minus sign, like -1200.50"],
    ['1200.50DR', "'1200.50DR' says credit or debit in words; write money in as it is and money out with a minus sign, like -1200.50"],
    ['$1200.50', "'$1200.50' has a currency or other sign beside the number; write the number alone, like -1200.50"],
    ['-R 12.50', "'-R 12.50' has a currency or other sign beside the number; write the number alone, like -1200.50"],
    ['12,50 €', "'12,50 €' has a currency or other sign beside the number; write the number alone, like -1200.50"],
    ['ZAR 12.50', "'ZAR 12.50' has a currency or other sign beside the number; write the number alone, like -1200.50"],
    ['- 5', "'- 5' is not a signed decimal amount like -1200.50"],
  ])('words %j, as another bank writes money, saying what to change', (text, message) => expect(parseSignedAmount(text)).toEqual({ code: 'INVALID_AMOUNT', message }));
  it('names the bound of one transaction', () => {
    expect(parseSignedAmount('-1000000000.00')).toBe(-100_000_000_000);
    expect(parseSignedAmount('-1000000000.01')).toEqual({
      code: 'AMOUNT_OUT_OF_RANGE',
      message: "'-1000000000.01' is beyond the most one transaction may move, 1000000000.00 either way",
    });
  });
});

describe('centsFromJsonNumber', () => {
  it('reads two-decimal numbers exactly', () => {
    expect(centsFromJsonNumber(149.5, 'x')).toBe(14950);
    expect(centsFromJsonNumber(0.29, 'x')).toBe(29);
    expect(centsFromJsonNumber(1234567.89, 'x')).toBe(123456789);
    expect(() => centsFromJsonNumber(0.001, 'x')).toThrow(TypeError);
  });

  it("reads another server's floating-point noise as the cent it stands for, and nothing else", () => {
    // Sums and differences as JavaScript or Python compute them.
    expect([149.55 - 50.35, 0.1 + 0.2, 110.1 * 3, 3 * 1.15]).toEqual([99.20000000000002, 0.30000000000000004, 330.29999999999995, 3.4499999999999997]);
    expect(centsFromJsonNumber(149.55 - 50.35, 'x', true)).toBe(9920);
    expect(centsFromJsonNumber(0.1 + 0.2, 'x', true)).toBe(30);
    expect(centsFromJsonNumber(110.1 * 3, 'x', true)).toBe(33030);
    expect(centsFromJsonNumber(-(3 * 1.15), 'x', true)).toBe(-345);
    expect(centsFromJsonNumber(123456789.12 + 0.06, 'x', true)).toBe(12345678918);
    // Not by default (premia's own answers are exact), and never a real third decimal.
    expect(() => centsFromJsonNumber(149.55 - 50.35, 'x')).toThrow('x is not a money amount: 99.20000000000002');
    for (const v of [356.3125, 0.001, 0.005, 99.195]) expect(() => centsFromJsonNumber(v, 'x', true), String(v)).toThrow(TypeError);
  });

  it('never rounds a real third decimal of a large amount, where a millionth of a millionth is half a cent', () => {
    // 5,000,000,000.125 is exactly what a server wrote (13 significant digits: a double holds it
    // as written): an unrounded 25 % of 20,000,000,000.50. It was read as 500000000013 cents.
    for (const v of [5000000000.125, 99999999999.995, 50000000000.125, 10000000000.005, 5000000000.1001]) {
      expect(() => centsFromJsonNumber(v, 'x', true), String(v)).toThrow(`x is not a money amount: ${v}`);
    }
    // Noise at that size is still the cent it stands for: 5,000,000,000.10 + 0.02 in floats.
    expect(5000000000.1 + 0.02).toBe(5000000000.120001);
    expect(centsFromJsonNumber(5000000000.1 + 0.02, 'x', true)).toBe(500000000012);
    // Past the 15th digit but half a cent off: not noise.
    expect(() => centsFromJsonNumber(5000000000.125001, 'x', true)).toThrow(TypeError);
  });
});

describe('amount messages quote at most 40 characters of what was given', () => {
  it('a 5,000-digit amount', () => {
    const p = parsePremium('9'.repeat(5000));
    expect(p).toEqual({ code: 'AMOUNT_OUT_OF_RANGE', message: `'${'9'.repeat(40)}…' is above the maximum premium of 1000000.00` });
  });
});

describe('Cents is a brand the compiler checks, and a plain number at run time', () => {
  it('asCents changes nothing at run time', () => {
    expect(asCents(14950)).toBe(14950);
    expect(typeof asCents(-5)).toBe('number');
  });

  it('a count, a sum or a bare number is not Cents until something says so', () => {
    const ok = compileErrors(
      [
        "import { asCents, parsePremium, formatCents, type Cents } from './money.js';",
        "import { settlementFigures } from './fees.js';",
        'const premium = parsePremium("149.50");',
        'const due: Cents = typeof premium === "number" ? premium : asCents(0);',
        'const net: Cents = settlementFigures(due).net_amount;',
        'const asNumber: number = net;',
        'formatCents(asNumber + due);',
      ].join('\n'),
    );
    expect(ok).toEqual([]);
    const wrong = compileErrors(
      [
        "import { type Cents } from './money.js';",
        "import type { Settlement } from '../backend/types.js';",
        'declare const s: Settlement;',
        'const a: Cents = 5;',
        'const b: Settlement["total_collections"] = s.collections_count;',
        'const c: Cents = s.net_amount + s.vat;',
      ].join('\n'),
    );
    expect(wrong).toHaveLength(3);
    for (const message of wrong) expect(message).toContain("is not assignable to type 'Cents'");
  });
});
