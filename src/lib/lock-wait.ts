/**
 * A write waiting for another process's write lock on a SQLite store (store/sqlite-dialect.ts
 * waits; the CLI says why nothing happens and lets Ctrl-C end the wait).
 */

/** What ends a wait for the write lock early: `signal` aborting (Ctrl-C), `error()` being thrown. */
export interface LockWaitStop {
  signal: AbortSignal | undefined;
  error: () => Error;
}

/** What the opener of a store hears of its waits for the write lock. */
export interface LockWaitHooks {
  /**
   * Told once when a wait has lasted half a second; may give what ends that wait early from then
   * on (the CLI's Ctrl-C, for a command without its own).
   */
  onWait?: () => LockWaitStop | undefined;
  /** Told when a wait that onWait was told of has ended, however it ended. */
  onWaitEnd?: () => void;
}
