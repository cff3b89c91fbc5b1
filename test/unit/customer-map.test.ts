import { describe, expect, it } from 'vitest';
import { CustomerMap, CustomerSet, lazyCustomerFilter } from '../../src/domain/customer.js';

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

  it('getOrSet: the value a customer has, or the one given once set; clients apart, the last one at hand', () => {
    const m = new CustomerMap<number>();
    expect(m.getOrSet(1, 'C1', 0)).toBe(0);
    expect(m.getOrSet(1, 'C2', 1)).toBe(1);
    expect(m.getOrSet(1, 'C1', 2)).toBe(0);
    expect(m.getOrSet(2, 'C1', 3)).toBe(3);
    expect(m.getOrSet(1, 'C2', 4)).toBe(1);
    m.set(2, 'C9', 9);
    expect(m.getOrSet(2, 'C9', 5)).toBe(9);
    expect(m.size).toBe(4);
    expect([m.get(1, 'C1'), m.get(1, 'C2'), m.get(2, 'C1'), m.get(2, 'C9')]).toEqual([0, 1, 3, 9]);
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
