/**
 * The operator's functions on a local store, behind one object (`LocalBackend.admin`): API keys
 * and their clients, engine settings, and the records of Idempotency-Key. The CLI (premia keys,
 * premia settings, --as-client, local --idempotency-key) and the server (authentication, the
 * idempotency of its writes) both use it, so neither reaches into the store.
 */
import type { Store } from '../../store/store.js';
import type { Admin, IdempotencyClaimInput, IdempotencyOwner, KeyRole, StoredResponse } from '../types.js';
import { authenticate, clientByName, clientLike, createKey, createKeyOnce, listKeys, clientsWithCollectionsIn, revokeKey } from './api-keys.js';
import { answerInWork, claimKey, completeKey, noteKeyTarget, processOwner, releaseKey, STORE_SCOPE } from './idempotency.js';
import { listSettings, setSetting } from './settings.js';
import { importHolidays, showCalendar } from './calendar.js';
import { workEngine } from './engine.js';
import { PremiaError } from '../../domain/errors.js';
import type { Period } from '../../domain/period.js';

export class LocalAdmin implements Admin {
  readonly keys: Admin['keys'];
  readonly clients: Admin['clients'];
  readonly settings: Admin['settings'];
  readonly calendar: Admin['calendar'];
  readonly engine: Admin['engine'];
  readonly idempotency: Admin['idempotency'];

  constructor(
    private readonly store: Store,
    now: () => Date,
    /** Whether the backend collects through a bank of its own (which another thread cannot share). */
    private readonly ownBank: boolean,
  ) {
    this.keys = {
      create: (client: string | null, role: KeyRole, options?: { closeName?: boolean }) => createKey(store, client, now, role, options?.closeName === true),
      createOnce: (client: string | null, role: KeyRole, claim: IdempotencyClaimInput, options?: { closeName?: boolean }) =>
        createKeyOnce(store, client, now, role, claim, options?.closeName === true),
      list: () => listKeys(store),
      revoke: (keyId: string) => revokeKey(store, keyId, now),
      authenticate: (presented: unknown) => authenticate(store, presented),
    };
    this.clients = {
      byName: (name: string) => clientByName(store, name),
      like: (name: string) => clientLike(store, name),
      withCollections: (period: Period) => clientsWithCollectionsIn(store, period),
    };
    this.settings = {
      list: () => listSettings(store),
      set: (key: string, value: string) => setSetting(store, key, value),
    };
    this.calendar = {
      show: (year: number) => showCalendar(store, year),
      import: (file, options) => importHolidays(store, file, options),
    };
    this.engine = {
      work: (options) => {
        if (ownBank) throw new PremiaError('CONFLICT', 'premia engine work lives days with the simulated bank of the store; this backend collects through a bank of its own.');
        return workEngine(store, options);
      },
    };
    this.idempotency = {
      owner: processOwner(),
      storeScope: STORE_SCOPE,
      claim: (input) => claimKey(store, input),
      complete: (clientId: number, key: string, response: StoredResponse, owner?: IdempotencyOwner) => completeKey(store, clientId, key, response, owner),
      release: (clientId: number, key: string, owner?: IdempotencyOwner) => releaseKey(store, clientId, key, owner),
      answerInWork,
      noteTarget: (clientId: number, key: string, to: string, owner?: IdempotencyOwner) => noteKeyTarget(store, clientId, key, to, owner),
    };
  }

  get storePath(): string {
    return this.store.path;
  }

  get sharedStoreFile(): string | null {
    // What another thread opens the same store with (a PostgreSQL URL keeps its password: never shown).
    const path = this.store.target;
    return path === ':memory:' || path === '' || this.ownBank ? null : path;
  }
}
