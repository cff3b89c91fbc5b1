/**
 * vitest's global setup: the tests' temporary files (tempDir, os.tmpdir() in the tests and in
 * every process they start) go to a directory of their own in /dev/shm when the machine has it
 * as a writable tmpfs, removed with everything left in it when the run ends. The suite makes
 * and closes some thousands of stores, each switched to WAL, committed and checkpointed with
 * fsync: on a disk that wait was ~18 s of the workers' time (profiled, 2026-12-02), on tmpfs an
 * fsync returns at once. Without /dev/shm the tests use the usual temporary directory.
 * PREMIA_TEST_TMPDIR=disk keeps them there anyway (to run the suite on a real disk).
 */
import { accessSync, chmodSync, constants, mkdtempSync, rmSync, statfsSync } from 'node:fs';

const TMPFS_MAGIC = 0x01021994;

export default function setup(): (() => void) | undefined {
  if (process.env.PREMIA_TEST_TMPDIR === 'disk') return undefined;
  try {
    accessSync('/dev/shm', constants.W_OK);
    // At least 2 GiB free (the largest test files are ~10 MiB each, a few hundred of them at once at most).
    const fs = statfsSync('/dev/shm');
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < 2 * 1024 ** 3) return undefined;
  } catch {
    return undefined;
  }
  const dir = mkdtempSync('/dev/shm/premia-tests-');
  // As /tmp is: the tests that run premia as another user (runuser -u nobody) reach their files.
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
