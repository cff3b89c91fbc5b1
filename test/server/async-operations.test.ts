/**
 * The server's memory of operations answered 202 (async-operations.ts): kept an hour after they
 * end, each client's own, and one client's many never push out another client's.
 */
import { describe, expect, it } from 'vitest';
import { AsyncOperations, MAX_OPERATIONS_PER_CLIENT, OPERATION_TTL_MS } from '../../src/server/async-operations.js';

const OK = { status: 200, body: '{"imported":1,"failed":0,"errors":[]}', replayed: false, kept: true };

describe('AsyncOperations', () => {
  it("another client's many operations do not push out a client's ended one within its hour", () => {
    let now = 0;
    const ops = new AsyncOperations(() => now);
    const mine = ops.create(1, 'POST', '/v1/policies/import');
    ops.finished(mine, OK);
    const theirs: string[] = [];
    for (let i = 0; i < MAX_OPERATIONS_PER_CLIENT + 5; i++) {
      now += 1;
      const op = ops.create(2, 'POST', '/v1/policies/import');
      ops.finished(op, OK);
      theirs.push(op.id);
    }
    expect(ops.get(1, mine.id)?.result).toEqual({ status: 200, body: OK.body, replayed: false });
    // The other client's own oldest went to make room for its newest: it keeps its last 1,000.
    expect(theirs.filter((id) => ops.get(2, id) !== undefined)).toEqual(theirs.slice(5));
    // And each sees only its own.
    expect(ops.get(2, mine.id)).toBeUndefined();
    // After the hour, the ended operation is forgotten.
    now += OPERATION_TTL_MS + 1;
    expect(ops.get(1, mine.id)).toBeUndefined();
  });

  it("a client's operations still running are never forgotten to make room", () => {
    let now = 0;
    const ops = new AsyncOperations(() => now);
    const running = Array.from({ length: MAX_OPERATIONS_PER_CLIENT + 2 }, () => ops.create(3, 'POST', '/v1/clock/advance'));
    now += 1;
    expect(running.every((op) => ops.get(3, op.id) !== undefined)).toBe(true);
  });
});
