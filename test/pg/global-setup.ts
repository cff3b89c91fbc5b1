/**
 * vitest global setup of `npm run test:pg` (vitest.pg.config.ts): one throwaway cluster for the
 * whole run, given to the test files through `inject('pg')`; stopped and removed at the end,
 * also on failure or Ctrl-C. Without PostgreSQL binaries the tests skip, and the reason is
 * printed here (never silently).
 */
import type { TestProject } from 'vitest/node';
import { missingReason, startCluster, type ClusterInfo } from './cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The cluster, or why there is none. */
    pg: { cluster: ClusterInfo | null; reason: string | null };
  }
}

export default async function setup(project: TestProject): Promise<() => void> {
  const reason = missingReason();
  if (reason !== null) {
    if (process.env.PREMIA_PG_REQUIRED === '1') throw new Error(`[test:pg] PREMIA_PG_REQUIRED=1 and ${reason}`);
    process.stderr.write(`\n[test:pg] PostgreSQL tests SKIPPED: ${reason}\n\n`);
    project.provide('pg', { cluster: null, reason });
    return () => undefined;
  }
  const started = Date.now();
  let cluster: Awaited<ReturnType<typeof startCluster>>;
  try {
    // A second try: the free port picked can be taken by another process before the server binds it.
    cluster = await startCluster().catch(() => startCluster());
  } catch (e) {
    // initdb or the server cannot run here (a container without shared memory, a postgres user
    // that cannot write the temporary folder…): skipped with the reason, unless PostgreSQL is
    // required (PREMIA_PG_REQUIRED=1), where it fails the run.
    const why = `the throwaway cluster could not be started: ${(e as Error).message.trim().split('\n').slice(0, 6).join(' | ')}`;
    if (process.env.PREMIA_PG_REQUIRED === '1') throw new Error(`[test:pg] PREMIA_PG_REQUIRED=1 and ${why}`);
    process.stderr.write(`\n[test:pg] PostgreSQL tests SKIPPED: ${why}\n\n`);
    project.provide('pg', { cluster: null, reason: why });
    return () => undefined;
  }
  process.stderr.write(`[test:pg] throwaway PostgreSQL cluster on 127.0.0.1:${cluster.port} (started in ${Date.now() - started} ms)\n`);
  // Stopped whatever ends the run: the teardown below, an interrupt, or the process exiting.
  const onSignal = (signal: NodeJS.Signals) => {
    cluster.stop();
    process.kill(process.pid, signal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.once('exit', () => cluster.stop());
  const info: ClusterInfo = { base: cluster.base, host: cluster.host, port: cluster.port, user: cluster.user, password: cluster.password };
  project.provide('pg', { cluster: info, reason: null });
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    cluster.stop();
  };
}
