/**
 * The collections engine (src/engine) wired to the local store: its ports are the store's
 * engine repository and the simulated bank on the same store (or the bank the context names).
 */
import { advance, type AdvanceResult } from '../../engine/advance.js';
import { workShards } from '../../engine/shards.js';
import { conflict, PremiaError } from '../../domain/errors.js';
import { periodsClosedBetween } from '../../domain/advance.js';
import type { IsoDate } from '../../domain/period.js';
import { clientDayFigures, clientsNotRun } from '../../store/repos/collections.js';
import { readWorld } from './world.js';
import type { Bank } from '../../engine/ports.js';
import { SimulatedBank } from '../../bank/simulated.js';
import { bankStore } from '../../store/repos/bank.js';
import { engineStore } from '../../store/repos/engine.js';
import type { Store } from '../../store/store.js';
import type { AdvanceOptions, AdvanceResult as AdvanceView, AdvanceTarget, EngineWorkOptions } from '../types.js';
import { asCents } from '../../domain/money.js';
import type { LocalContext } from './context.js';
import { accountHelper } from './account-helper.js';
import { engineHooks, engineOptionsFromEnv } from './memory.js';

/** The simulated bank on `store` (what the engine collects through unless told otherwise). */
export function simulatedBankOn(store: Store): Bank {
  return new SimulatedBank(bankStore(store));
}

/** Live through the days after the clock's date up to the target. */
export function advanceClock(ctx: LocalContext, target: AdvanceTarget, options: AdvanceOptions = {}): Promise<AdvanceResult> {
  const bank = (ctx.bank ?? simulatedBankOn)(ctx.store);
  // The helper opens accounts as the simulated bank does: not for another bank.
  const helper = ctx.bank === undefined ? accountHelper(ctx.store) : undefined;
  return advance({ store: engineStore(ctx.store, { aloneOnThread: ctx.aloneOnThread === true }), bank, helper }, target, {
    clientId: ctx.clientId,
    now: ctx.now,
    onDay: options.onDay,
    onWait: options.onWait,
    signal: options.signal,
    hooks: engineHooks(ctx.engine ?? {}),
    beforeDays: async (from, to) => {
      if (target.safe_close === true) await refuseUnsafeClose(ctx, from, to);
      await options.onRange?.(from, to);
    },
  });
}

/**
 * A stored advance result (an Idempotency-Key's answer, kept for the whole store) as the client
 * of `ctx` sees it: the same days, dates and closed periods, with this client's own figures read
 * from the store. The key of an advance is the store's, so a retry through another client's
 * operator key is recognised; the answer it replays must not show the first client's money.
 */
export async function advanceResultFor(ctx: LocalContext, stored: AdvanceView): Promise<AdvanceView> {
  if (stored.days.length === 0) return stored;
  const figures = await clientDayFigures(ctx.store.db, ctx.clientId, stored.days[0]!.date, stored.days[stored.days.length - 1]!.date);
  return {
    ...stored,
    days: stored.days.map((d) => {
      const f = figures.get(d.date);
      return {
        ...d,
        attempts: f?.attempts ?? 0,
        succeeded: f?.succeeded ?? 0,
        failed: f?.failed ?? 0,
        collected: asCents(f?.collected ?? 0),
        lapsed_policies: d.closed_period !== null ? (f?.lapsed ?? 0) : 0,
      };
    }),
  };
}

/**
 * An advance asked to close safely (AdvanceTarget.safe_close), judged once its turn has come
 * (another advance may have moved the clock while it waited): refused when a collections run
 * exists and it would close more than one period, or one that a client of the store with an
 * active policy has no collections queued for (whose premiums could then never be collected).
 * The details say which, for the CLI's message (cli/confirm.ts).
 */
async function refuseUnsafeClose(ctx: LocalContext, from: IsoDate, to: IsoDate): Promise<void> {
  const closes = periodsClosedBetween(from, to);
  if (closes.length === 0 || !(await readWorld(ctx.store.db)).locked) return;
  if (closes.length > 1) {
    throw conflict('CONFLICT', `This advance (from ${from} to ${to}) would close ${closes.length} periods (${closes.join(', ')}); asked to close safely, it closes at most one. Nothing was done.`, [
      { field: 'safe_close', code: 'SEVERAL_PERIODS', message: `it would close ${closes.join(', ')}`, periods: closes },
    ]);
  }
  const period = closes[0]!;
  const unrun = await clientsNotRun(ctx.store.db, period);
  if (unrun.length === 0) return;
  const names = unrun.map((c) => c.name);
  throw conflict(
    'CONFLICT',
    `This advance (from ${from} to ${to}) would close ${period}, and ${names.join(', ')} ${names.length === 1 ? 'has' : 'have'} active policies and no collections queued for it: once closed, those premiums can never be collected. Nothing was done.`,
    [{ field: 'safe_close', code: 'UNRUN_PERIOD', message: `no collections queued for ${period}`, periods: [period], clients: names, own: unrun.some((c) => c.id === ctx.clientId) }],
  );
}

/**
 * `premia engine work`: live the shards of the days that advances open on this store, with the
 * simulated bank, until stopped (or until the clock reaches `options.until`).
 */
export async function workEngine(store: Store, options: EngineWorkOptions): Promise<number> {
  const engine = { store: engineStore(store), bank: simulatedBankOn(store) };
  if (engine.store.shards === undefined) {
    throw new PremiaError(
      'VALIDATION_ERROR',
      `premia engine work needs a store several processes share: a PostgreSQL database (--db postgres://…); ${store.path} lives its days in one process.`,
    );
  }
  options.onStart?.();
  const hooks = engineHooks(engineOptionsFromEnv(process.env));
  return workShards(engine, { until: options.until, signal: options.signal, onShard: options.onShard, hooks: { beforeShardCommit: (date, shard) => hooks.beforeShardCommit?.(date, shard) } });
}
