import { describe, expect, it } from 'vitest';
import {
  ASCII_CHAR_CLASS,
  characterCount,
  checkIdentifier,
  checkProductCode,
  escapeUnseen,
  firstUnseen,
  IDENTIFIER_CHAR,
  moreCharactersThan,
  overlongCharacter,
  printable,
  PRODUCT_CODE_CHAR,
} from '../../src/domain/identifiers.js';

const ONLY = 'only letters, digits and - _ . / are allowed';

describe('checkIdentifier (policy_number, customer_id, external_customer_ref)', () => {
  it.each([
    'P',
    'POL-2026001',
    'a-b_c.d/e',
    '2026/11/ACME.1',
    '_leading_underscore',
    '.leading.dot',
    '/leading/slash',
    'trailing-',
    'x'.repeat(64),
  ])('accepts %j', (value) => {
    expect(checkIdentifier(value, 'policy_number')).toBeNull();
  });

  it.each([
    ['', 'REQUIRED', 'policy_number is required'],
    ['x'.repeat(65), 'TOO_LONG', 'policy_number is 65 characters long; at most 64 are allowed'],
    ['-'.repeat(65), 'TOO_LONG', 'policy_number is 65 characters long; at most 64 are allowed'],
    ['-abc', 'INVALID_FORMAT', "policy_number '-abc' must not start with '-'"],
    ['-', 'INVALID_FORMAT', "policy_number '-' must not start with '-'"],
    ['=1+2', 'INVALID_FORMAT', `policy_number '=1+2' has '=' at position 1; ${ONLY}`],
    ['+27123', 'INVALID_FORMAT', `policy_number '+27123' has '+' at position 1; ${ONLY}`],
    ['@SUM(A1)', 'INVALID_FORMAT', `policy_number '@SUM(A1)' has '@' at position 1; ${ONLY}`],
    ['POL 1', 'INVALID_FORMAT', `policy_number 'POL 1' has a space at position 4; ${ONLY}`],
    [' POL1', 'INVALID_FORMAT', `policy_number ' POL1' has a space at position 1; ${ONLY}`],
    ['POL\t1', 'INVALID_FORMAT', `policy_number 'POL\\u00091' has a control character (U+0009) at position 4; ${ONLY}`],
    ['POL1\n', 'INVALID_FORMAT', `policy_number 'POL1\\u000a' has a control character (U+000A) at position 5; ${ONLY}`],
    ['P\u0000', 'INVALID_FORMAT', `policy_number 'P\\u0000' has a control character (U+0000) at position 2; ${ONLY}`],
    ['P\u007f', 'INVALID_FORMAT', `policy_number 'P\\u007f' has a control character (U+007F) at position 2; ${ONLY}`],
    ['Pé1', 'INVALID_FORMAT', `policy_number 'Pé1' has 'é' at position 2; ${ONLY}`],
    ['Ärzte', 'INVALID_FORMAT', `policy_number 'Ärzte' has 'Ä' at position 1; ${ONLY}`],
    ['保险1', 'INVALID_FORMAT', `policy_number '保险1' has '保' at position 1; ${ONLY}`],
    ['POL\u00a01', 'INVALID_FORMAT', `policy_number 'POL\u00a01' has a no-break space (U+00A0) at position 4; ${ONLY}`],
    ['POL\u202f1', 'INVALID_FORMAT', `policy_number 'POL\u202f1' has a no-break space (U+202F) at position 4; ${ONLY}`],
    ['POL\u30001', 'INVALID_FORMAT', `policy_number 'POL\u30001' has a space of another kind (U+3000) at position 4; ${ONLY}`],
    // A character outside the BMP is named whole, not as half a surrogate pair.
    ['P😀1', 'INVALID_FORMAT', `policy_number 'P😀1' has '😀' at position 2; ${ONLY}`],
    ['P,1', 'INVALID_FORMAT', `policy_number 'P,1' has ',' at position 2; ${ONLY}`],
    ['P"1', 'INVALID_FORMAT', `policy_number 'P"1' has '"' at position 2; ${ONLY}`],
    // A long id of digits as a spreadsheet saves it: no '+' to delete (1.23457E11 would pass, a wrong id).
    ...['1.23457E+11', '4.51E+15', '7E+20', '1.2e+5'].map((value) => [
      value,
      'INVALID_FORMAT',
      `policy_number '${value}' is a long number as a spreadsheet shows it, in scientific notation, which keeps only its first digits; format the column as text and copy the ids from their source again`,
    ]),
    ['P1E+5', 'INVALID_FORMAT', `policy_number 'P1E+5' has '+' at position 4; ${ONLY}`],
  ])('rejects %j with %s', (value, code, message) => {
    expect(checkIdentifier(value, 'policy_number')).toEqual({ code, message });
  });

  it('names the field it checks', () => {
    expect(checkIdentifier('', 'customer_id')).toEqual({ code: 'REQUIRED', message: 'customer_id is required' });
    expect(checkIdentifier('a b', 'external_customer_ref')?.message).toBe(
      `external_customer_ref 'a b' has a space at position 2; ${ONLY}`,
    );
  });

  it('no accepted identifier can start a spreadsheet formula', () => {
    for (const first of ['=', '+', '-', '@', '\t', '\r']) {
      expect(checkIdentifier(`${first}1`, 'policy_number')).not.toBeNull();
    }
  });
});

describe('checkProductCode', () => {
  it.each(['FUNERAL', 'LIFE_STANDARD', 'A-1', '_X', '9', 'A'.repeat(32)])('accepts %j', (value) => {
    expect(checkProductCode(value)).toBeNull();
  });

  it.each([
    ['', 'REQUIRED', 'product_code is required'],
    ['A'.repeat(33), 'TOO_LONG', 'product_code is 33 characters long; at most 32 are allowed'],
    ['a'.repeat(33), 'TOO_LONG', 'product_code is 33 characters long; at most 32 are allowed'],
    ['funeral', 'INVALID_FORMAT', "product_code 'funeral' must be upper case (A-Z 0-9 _ -)"],
    ['Life_1', 'INVALID_FORMAT', "product_code 'Life_1' must be upper case (A-Z 0-9 _ -)"],
    ['a'.repeat(32), 'INVALID_FORMAT', `product_code '${'a'.repeat(32)}' must be upper case (A-Z 0-9 _ -)`],
    ['-FUNERAL', 'INVALID_FORMAT', "product_code '-FUNERAL' must not start with '-'"],
    ['+FUNERAL', 'INVALID_FORMAT', "product_code '+FUNERAL' has '+' at position 1; only A-Z, 0-9, _ and - are allowed"],
    ['=X', 'INVALID_FORMAT', "product_code '=X' has '=' at position 1; only A-Z, 0-9, _ and - are allowed"],
    ['@X', 'INVALID_FORMAT', "product_code '@X' has '@' at position 1; only A-Z, 0-9, _ and - are allowed"],
    ['LIFE PLAN', 'INVALID_FORMAT', "product_code 'LIFE PLAN' has a space at position 5; only A-Z, 0-9, _ and - are allowed"],
    ['LIFE.PLAN', 'INVALID_FORMAT', "product_code 'LIFE.PLAN' has '.' at position 5; only A-Z, 0-9, _ and - are allowed"],
    ['LIFE/PLAN', 'INVALID_FORMAT', "product_code 'LIFE/PLAN' has '/' at position 5; only A-Z, 0-9, _ and - are allowed"],
    ['ÉPARGNE', 'INVALID_FORMAT', "product_code 'ÉPARGNE' has 'É' at position 1; only A-Z, 0-9, _ and - are allowed"],
    ['X\u0001', 'INVALID_FORMAT', "product_code 'X\\u0001' has a control character (U+0001) at position 2; only A-Z, 0-9, _ and - are allowed"],
  ])('rejects %j with %s', (value, code, message) => {
    expect(checkProductCode(value)).toEqual({ code, message });
  });
});

describe('printable', () => {
  it('escapes control characters and cuts long values', () => {
    expect(printable('a\u0000b\u001fc\u007f')).toBe('a\\u0000b\\u001fc\\u007f');
    // C1 controls (U+009B starts a terminal's control sequence), zero-width and direction marks, a BOM.
    expect(printable('\u009b31mRED \u202eyad \u200bzw \ufeffbom')).toBe('\\u009b31mRED \\u202eyad \\u200bzw \\ufeffbom');
    expect(printable('é ü 💸')).toBe('é ü 💸');
    expect(printable('x'.repeat(81))).toBe(`${'x'.repeat(80)}…`);
    expect(printable('x'.repeat(80))).toBe('x'.repeat(80));
    expect(printable('abcdef', 3)).toBe('abc…');
  });
});

describe('an invisible character in an identifier, and characters as a person counts them', () => {
  it('names the invisible character by its code point, not as itself', () => {
    expect(checkIdentifier('ZW\u200b1', 'policy_number')?.message).toBe("policy_number 'ZW\\u200b1' has an invisible character (U+200B) at position 3; only letters, digits and - _ . / are allowed");
    expect(checkIdentifier('X\u009b', 'policy_number')?.message).toBe("policy_number 'X\\u009b' has a control character (U+009B) at position 2; only letters, digits and - _ . / are allowed");
    expect(firstUnseen('Bidi\u202eyad')).toBe('U+202E');
    // The Arabic letter mark, a bidirectional control as U+200F is, was shown as itself (unseen).
    expect(checkIdentifier('C\u061c1', 'customer_id')?.message).toBe("customer_id 'C\\u061c1' has an invisible character (U+061C) at position 2; only letters, digits and - _ . / are allowed");
    expect(firstUnseen('\u0645\u061c1')).toBe('U+061C');
    expect(firstUnseen('Family Day')).toBeNull();
    // The other format characters that show nothing: the soft hyphen, the Mongolian vowel
    // separator, an interlinear annotation mark, and the tag characters (invisible copies of
    // ASCII: 'C1' then a tag '1' read as 'C1'), named and escaped whole (past U+FFFF too).
    expect(['Pay\u00adroll', 'A\u180eB', 'A\ufff9B', 'C1\u{e0031}', '\u{e0001}'].map(firstUnseen)).toEqual(['U+00AD', 'U+180E', 'U+FFF9', 'U+E0031', 'U+E0001']);
    expect(checkIdentifier('C1\u{e0031}', 'customer_id')?.message).toBe("customer_id 'C1\\u{e0031}' has an invisible character (U+E0031) at position 3; only letters, digits and - _ . / are allowed");
    expect(escapeUnseen('Pay\u00adroll \u{e0041}\u{e007f}')).toBe('Pay\\u00adroll \\u{e0041}\\u{e007f}');
    // Other characters past U+FFFF (an emoji, the unassigned one after the tags, a variation
    // selector) are left as they are.
    expect([firstUnseen('\u{1f4b8} \u{e0080} \u{e0100}'), escapeUnseen('\u{1f4b8}')]).toEqual([null, '\u{1f4b8}']);
    // Unicode's noncharacters, never text: U+FDD0-FDEF and the last two code points of every plane.
    expect(['A\ufffeB', 'A\uffff', '\ufdd0', '\ufdef', 'x\u{1fffe}', '\u{10ffff}', '\u{8ffff}'].map(firstUnseen)).toEqual([
      'U+FFFE',
      'U+FFFF',
      'U+FDD0',
      'U+FDEF',
      'U+1FFFE',
      'U+10FFFF',
      'U+8FFFF',
    ]);
    expect(escapeUnseen('A\ufffeB\u{10ffff}')).toBe('A\\ufffeB\\u{10ffff}');
    // Their neighbours are text: the replacement character, U+FDCF and U+FDF0, U+1FFFD.
    expect(['\ufffd', '\ufdcf\ufdf0', '\u{1fffd}'].map(firstUnseen)).toEqual([null, null, null]);
  });

  it('counts grapheme clusters', () => {
    expect(characterCount('e\u0301'.repeat(3))).toBe(3);
    expect(characterCount('💸💸')).toBe(2);
    expect(characterCount('👩\u200d👩\u200d👧')).toBe(1);
    expect(characterCount('')).toBe(0);
  });

  it('finds a character of more code points than a bound, by its position in characters', () => {
    const stacked = (marks: number) => `a${'\u0301'.repeat(marks)}`;
    expect(overlongCharacter('plain text', 31, 200)).toBe(0);
    expect(overlongCharacter(`x🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}👍🏽${stacked(30)}`, 31, 200)).toBe(0); // a tag flag, a skin tone, 30 accents
    expect(overlongCharacter(`xy${stacked(31)}z`, 31, 200)).toBe(3);
    expect(overlongCharacter(`🏴${'\u{e0067}'.repeat(40)}`, 31, 200)).toBe(1); // tags are accents to Unicode too
    expect(overlongCharacter(`${'x'.repeat(200)}${stacked(100)}`, 31, 200)).toBe(0); // past the characters it reads
  });

  it('says whether a text is longer than a bound as characterCount counts, however long the text', () => {
    const thumb = '👍🏽'; // 4 UTF-16 units, one character
    const family = '👩\u200d👩\u200d👧'; // 8 units, one character
    const zalgo = `a${'\u0301'.repeat(5_000)}`; // one character of 5,001 units
    for (const [unit, n] of [
      ['x', 200],
      ['e\u0301', 200],
      [thumb, 200],
      [family, 200],
      [`${family}x`, 100],
      [zalgo, 3],
    ] as const) {
      const text = unit.repeat(n);
      const count = characterCount(text);
      for (const max of [count - 1, count, count + 1]) expect([unit, n, max, moreCharactersThan(text, max)]).toEqual([unit, n, max, count > max]);
      expect(moreCharactersThan(`${text}${'y'.repeat(10_000)}`, count)).toBe(true);
    }
    // Cut inside a cluster: the prefix's last one is not counted as the text's.
    expect(moreCharactersThan(`${'x'.repeat(199)}a${'\u0301'.repeat(3_000)}`, 200)).toBe(false);
    expect(moreCharactersThan(`${'x'.repeat(1_614)}${zalgo}`, 1_615)).toBe(false);
    // A long text is settled from its beginning: a million characters take no time. Timed in this
    // process's CPU time (under 0.2 s here), not by the wall clock, which on a loaded machine also
    // counts the time other processes had the cores.
    const started = process.cpuUsage();
    for (let k = 0; k < 100; k++) expect(moreCharactersThan('é'.repeat(1_000_000), 200)).toBe(true);
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1000).toBeLessThan(2_000);
  });
});

describe("the import fast path's character table", () => {
  it('allows exactly the characters the identifier and product code rules allow', () => {
    for (let c = 0; c < 128; c++) {
      const ch = String.fromCharCode(c);
      // A one-character value 'x' + ch, so '-' (refused only in first place) is judged as a later character.
      const identifier = checkIdentifier(`x${ch}`, 'policy_number') === null;
      const product = checkProductCode(`X${ch}`) === null;
      expect([c, (ASCII_CHAR_CLASS[c]! & IDENTIFIER_CHAR) !== 0]).toEqual([c, identifier]);
      expect([c, (ASCII_CHAR_CLASS[c]! & PRODUCT_CODE_CHAR) !== 0]).toEqual([c, product]);
    }
  });
});
