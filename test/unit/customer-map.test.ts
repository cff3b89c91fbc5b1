import { describe, expect, it } from 'vitest';
import { CustomerMap, CustomerNumbers, CustomerSet, lazyCustomerFilter } from '../../src/domain/customer.js';

describe('CustomerMap', () => {
  it('keys by client and customer: the same customer id at two clients is two customers', () => {
    const m = new CustomerMap<number>();
    m.set(1, 'C1', 10).set(2, 'C1', 20).set(1, 'C2', 30);
    expect(m.size).toBe(3);
    expect(m.get(1, 'C1')).toBe(10);
    expect(m.get(2, 'C1')).toBe(20);
    expect(m.get(2, 'C2')).toBeUndefined();
    expect(m.get(3, 'C1')).toBeUndefined();
    expect(m.has(1, 'C2')).toBe(true);
    expect(m.has(2, 'C2')).toBe(false);
  });

  it('replacing a value keeps the size', () => {
    const m = new CustomerMap<string>();
    m.set(2, 'B', 'b').set(1, 'A', 'a').set(2, 'C', 'c').set(2, 'B', 'b2');
    expect(m.size).toBe(3);
    expect([m.get(2, 'B'), m.get(1, 'A'), m.get(2, 'C')]).toEqual(['b2', 'a', 'c']);
  });

  it('a customer id is a string, never confused with a joined key', () => {
    const m = new CustomerMap<number>();
    m.set(1, '2\u0000x', 1);
    expect(m.get(12, 'x')).toBeUndefined();
    expect(m.get(1, '2\u0000x')).toBe(1);
  });
});

describe('CustomerSet', () => {
  it('adds each customer once', () => {
    const s = new CustomerSet().add(1, 'C1').add(1, 'C1').add(2, 'C1');
    expect(s.size).toBe(2);
    expect(s.has(1, 'C1')).toBe(true);
    expect(s.has(2, 'C1')).toBe(true);
    expect(s.has(3, 'C1')).toBe(false);
  });
});

describe('lazyCustomerFilter', () => {
  it('keeps the customers picked, and makes its set only when first asked', () => {
    const asked: number[] = [];
    const filter = lazyCustomerFilter([1, 1, 2], ['A', 'B', 'A'], (k) => {
      asked.push(k);
      return k !== 1;
    });
    expect(asked).toEqual([]);
    expect(filter.has(1, 'A')).toBe(true);
    expect(filter.has(1, 'B')).toBe(false);
    expect(filter.has(2, 'A')).toBe(true);
    expect(filter.has(2, 'B')).toBe(false);
    expect(asked).toEqual([0, 1, 2]);
  });

  it('without a pick keeps every customer given', () => {
    const filter = lazyCustomerFilter([3], ['X']);
    expect(filter.has(3, 'X')).toBe(true);
    expect(filter.has(4, 'X')).toBe(false);
  });
});

describe('CustomerNumbers', () => {
  it('numbers customers in the order first seen, clients apart; find knows only those numbered', () => {
    const n = new CustomerNumbers(5);
    expect([n.number(1, 'C1'), n.number(1, 'C2'), n.number(1, 'C1'), n.number(2, 'C1'), n.number(1, 'C2')]).toEqual([0, 1, 0, 2, 1]);
    expect(n.size).toBe(3);
    expect([n.find(2, 'C1'), n.find(1, 'C2'), n.find(2, 'C2'), n.find(3, 'C1')]).toEqual([2, 1, -1, -1]);
    expect([n.clientId, n.customerId]).toEqual([[1, 1, 2], ['C1', 'C2', 'C1']]);
    n.number(1, '2\u0000x');
    expect(n.find(12, 'x')).toBe(-1);
  });

  it('agrees with a Map over many customers, colliding slots and growing past its hint included', () => {
    for (const hint of [50_000, 10]) {
      const n = new CustomerNumbers(hint);
      const seen = new Map<string, number>();
      const expected: number[] = [];
      const got: number[] = [];
      for (let r = 0; r < 50_000; r++) {
        const client = 1 + (r % 3);
        const id = `C${(r * 7919) % 20_011}`;
        const key = `${client}/${id}`;
        if (!seen.has(key)) seen.set(key, seen.size);
        expected.push(seen.get(key)!);
        got.push(n.number(client, id));
      }
      expect(got).toEqual(expected);
      expect(n.size).toBe(seen.size);
      const found = [...seen.keys()].map((key) => n.find(Number(key.split('/')[0]), key.split('/')[1]!));
      expect(found).toEqual([...seen.values()]);
      expect(n.find(4, 'C1')).toBe(-1);
    }
  });
});
