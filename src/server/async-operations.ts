/**
 * Long requests answered asynchronously (RFC 7240 `Prefer: respond-async`): the work runs as
 * ever, but the answer is `202 Accepted` with `Location: /v1/operations/{id}`, and
 * `GET /v1/operations/{id}` tells how far it has got and, once done, the response the request
 * would have had (status and body). Operations live in the server's memory, for an hour after
 * they end (at most 1,000 of each client's: one client's many never push out another's); each is
 * visible only to the client that made it. A server
 * restart forgets them: the request's Idempotency-Key still has its stored response.
 */
import { randomUUID } from 'node:crypto';
import type { DaySummary } from '../backend/types.js';
import { stringifyJson } from '../domain/json.js';
import type { JobOutcome, JobProgress } from './jobs.js';

export const OPERATION_TTL_MS = 60 * 60 * 1000;
/** Operations kept per client; beyond it the client's own oldest ended ones are forgotten first. */
export const MAX_OPERATIONS_PER_CLIENT = 1000;

export interface AsyncOperationState {
  id: string;
  clientId: number;
  method: string;
  path: string;
  state: 'queued' | 'running' | 'succeeded' | 'failed';
  createdAt: number;
  completedAt: number | null;
  progress: { unit: 'days' | 'bytes'; done: number; total: number; rows?: number } | null;
  /** The days an advance has lived so far. */
  days: DaySummary[];
  result: { status: number; body: string; replayed: boolean } | null;
}

export class AsyncOperations {
  private readonly ops = new Map<string, AsyncOperationState>();

  constructor(private readonly now: () => number) {}

  create(clientId: number, method: string, path: string): AsyncOperationState {
    this.prune(clientId);
    const op: AsyncOperationState = {
      id: randomUUID(),
      clientId,
      method,
      path,
      state: 'queued',
      createdAt: this.now(),
      completedAt: null,
      progress: null,
      days: [],
      result: null,
    };
    this.ops.set(op.id, op);
    return op;
  }

  /** The operation of this client with this id (another client's is not found either). */
  get(clientId: number, id: string): AsyncOperationState | undefined {
    this.prune();
    const op = this.ops.get(id);
    return op && op.clientId === clientId ? op : undefined;
  }

  started(op: AsyncOperationState): void {
    if (op.state === 'queued') op.state = 'running';
  }

  progressed(op: AsyncOperationState, p: JobProgress): void {
    if (p.unit === 'days') {
      op.days.push(p.day);
      op.progress = { unit: 'days', done: p.done, total: p.total };
    } else {
      op.progress = { unit: 'bytes', done: p.done, total: p.total, rows: p.rows };
    }
  }

  finished(op: AsyncOperationState, outcome: JobOutcome): void {
    op.state = outcome.status < 400 ? 'succeeded' : 'failed';
    op.completedAt = this.now();
    op.result = { status: outcome.status, body: outcome.body, replayed: outcome.replayed };
  }

  /**
   * Forget operations that ended more than an hour ago, and, making room for one more of
   * `clientId`'s, that client's oldest ended ones beyond its cap (never another client's).
   */
  private prune(clientId?: number): void {
    const now = this.now();
    for (const [id, op] of this.ops) {
      if (op.completedAt !== null && now - op.completedAt > OPERATION_TTL_MS) this.ops.delete(id);
    }
    if (clientId === undefined) return;
    let held = 0;
    for (const op of this.ops.values()) if (op.clientId === clientId) held++;
    for (const [id, op] of this.ops) {
      if (held < MAX_OPERATIONS_PER_CLIENT) break;
      if (op.clientId === clientId && op.completedAt !== null) {
        this.ops.delete(id);
        held--;
      }
    }
  }
}

/**
 * The operation as JSON: {id, status, request, created_at, completed_at, progress, days?, result}.
 * `result.body` is the response body itself, as the request would have had it.
 */
export function operationJson(op: AsyncOperationState): string {
  const view: Record<string, unknown> = {
    id: op.id,
    status: op.state,
    request: { method: op.method, path: op.path },
    created_at: new Date(op.createdAt).toISOString(),
    completed_at: op.completedAt === null ? null : new Date(op.completedAt).toISOString(),
    progress: op.progress,
  };
  if (op.progress?.unit === 'days') view.days = op.days;
  const head = stringifyJson(view);
  // The stored body is already JSON text with premia's money format: spliced in as it is.
  const result = op.result === null ? 'null' : `{"status":${op.result.status},"replayed":${op.result.replayed},"body":${op.result.body}}`;
  return `${head.slice(0, -1)},"result":${result}}`;
}
