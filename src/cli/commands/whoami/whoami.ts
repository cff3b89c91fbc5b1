/**
 * `premia whoami`: the mode and target the other commands would use, and who they act for. In
 * remote mode it asks the service (GET /whoami; on a server without it, the key is checked with a
 * spec request) so a refused key shows here first (exit 4). The key is shown by its last 4
 * characters only.
 */
import { existsSync } from 'node:fs';
import { isPostgresUrl, redactDbUrl } from '../../../lib/db-url.js';
import type { Target } from '../../../backend/types.js';
import { PremiaError } from '../../../domain/errors.js';
import { verb, type CommandDeps } from '../../command.js';

function isStoreNotFound(e: unknown): boolean {
  return e instanceof PremiaError && (e.details ?? []).some((d) => d.code === 'STORE_NOT_FOUND');
}

export async function whoamiRun({ ctx, globals, ui, backend }: CommandDeps): Promise<number> {
  const target = await ctx.target(globals);
  // Asking who we are does not create a store: without one, say where it would be.
  let noStore = target.mode === 'local' && target.db !== ':memory:' && !isPostgresUrl(target.db!) && !existsSync(target.db!);
  const notCreated: Target = { mode: 'local', db: target.db, client: target.asClient ?? null };
  let described: Target;
  if (noStore) described = notCreated;
  else {
    try {
      described = await (await backend()).describe();
    } catch (e) {
      // A PostgreSQL database without premia's tables yet, an empty file, or a store never set up
      // (a stopped `db copy` into it): said as for a file not made yet.
      if (!(target.mode === 'local' && isStoreNotFound(e))) throw e;
      noStore = true;
      described = notCreated;
    }
  }
  const out: Target & { key_source?: string | null } =
    target.mode === 'local'
      ? { mode: 'local', db: redactDbUrl(described.db ?? target.db!), client: described.client ?? null }
      : {
          mode: 'remote',
          base_url: target.baseUrl,
          profile: target.profile,
          client: described.client ?? null,
          api_key: described.api_key ?? null,
          key_source: target.keySource ?? null,
          server_version: described.server_version ?? null,
        };
  if (ui.json) {
    ui.printJson(out);
    return 0;
  }
  if (out.mode === 'local') {
    ui.keyValues([
      ['mode', 'local'],
      ['store', noStore ? `${out.db} (not created yet)` : out.db],
      ['client', out.client],
    ]);
  } else {
    ui.keyValues([
      ['mode', 'remote'],
      ['url', out.base_url],
      ['profile', out.profile],
      ['client', out.client ?? '(this server does not say)'],
      ['api_key', `${out.api_key}${out.key_source ? ` (from ${out.key_source === 'env' ? 'PREMIA_API_KEY' : out.key_source === 'flag' ? '--api-key' : 'the profile'})` : ''}`],
      ['server', out.server_version ? `premia ${out.server_version}` : 'another server implementing the spec'],
    ]);
  }
  return 0;
}

export default verb((deps) => deps, whoamiRun);
