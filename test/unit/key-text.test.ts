/** How an API key is kept out of what premia prints (src/lib/key-text.ts). */
import { describe, expect, it } from 'vitest';
import { maskKey, redactGivenKeys, redactText } from '../../src/lib/key-text.js';

const KEY = 'pmk_86jV8JHnXCH1Tg63gXtHV6F16i5OczLU9Lt8H769';
const OTHER = 'sk_live_51Hx9dQ2eZvKYlo2C8n3R7tWm4pB6yFa';

describe('redactText', () => {
  it('shows the key, as is or URL-encoded, as its last 4 characters', () => {
    expect(maskKey(KEY)).toBe('…H769');
    expect(redactText(`key ${KEY} refused; again ${KEY}.`, KEY)).toBe('key …H769 refused; again …H769.');
    expect(redactText(`/v1/policies/${encodeURIComponent('a+b/' + KEY)}`, 'a+b/' + KEY)).toBe('/v1/policies/…H769');
    // Encoded, it begins as the key does (10 characters) and goes on otherwise: masked whole.
    const plus = 'sk_live_ab+cdEFgh1234';
    expect(redactText(`?key=${encodeURIComponent(plus)}&x=1`, plus)).toBe('?key=…1234&x=1');
    // A key of 10 characters or fewer: itself, as before.
    expect(redactText('short sk_9a8b7c6 here', 'sk_9a8b7c6')).toBe('short …b7c6 here');
  });

  it('a key cut short by the server that echoes it (10 characters or more of its start) is masked too', () => {
    expect(redactText('unknown key pmk_86jV8JHnXCH1Tg63…', KEY)).toBe('unknown key …H769…');
    expect(redactText('{"error":"bad key pmk_86jV8JHn"}', KEY)).toBe('{"error":"bad key …H769"}');
    // Its whole run, however long, once; twice when it comes twice.
    expect(redactText(`${KEY.slice(0, 30)}|${KEY.slice(0, 12)}x`, KEY)).toBe('…H769|…H769x');
    expect(redactText(`[${OTHER.slice(0, 17)}]`, OTHER)).toBe('[…6yFa]');
  });

  it('leaves shorter starts, other text and other keys as they are', () => {
    expect(redactText('pmk_86jV8J is 10 long; pmk_86jV8 is 9', KEY)).toBe('…H769 is 10 long; pmk_86jV8 is 9');
    expect(redactText('pmk_ is every key’s start; 86jV8JHnXCH1 is its middle', KEY)).toBe('pmk_ is every key’s start; 86jV8JHnXCH1 is its middle');
    expect(redactText(`another ${OTHER}`, KEY)).toBe(`another ${OTHER}`);
    expect(redactText('nothing of it', undefined)).toBe('nothing of it');
  });

  it('every configured key, the longest first', () => {
    expect(redactGivenKeys(`${KEY.slice(0, 14)} and ${OTHER}`, [KEY, OTHER])).toBe('…H769 and …6yFa');
  });
});
