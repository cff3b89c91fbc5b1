import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files run with the modules of the files before them in the same worker (no fresh module
 * graph per file: importing premia's sources again for each of ~120 files was ~45 s of the
 * suite's ~105 s), except those that replace a module (vi.mock), each in a graph of its own.
 */
const OWN_MODULES = [
  'test/store/policy-import-threads.test.ts',
  'test/cli/input-files.test.ts',
  'test/cli/file-changed-while-read.test.ts',
  'test/cli/fixtures-copy-full.test.ts',
  'test/store/allocator-threshold.test.ts',
];

/**
 * The tests' processes (the workers, and every premia, server and helper they start) talk to no
 * TLS service but the tests' own, whose certificate test/e2e/tls-trust.test.ts names itself. A
 * machine-wide NODE_EXTRA_CA_CERTS (this one names the system's whole CA bundle) made each of
 * them parse it as Node started: ~50 ms of every process, a few hundred of them per run.
 */
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    // Temporary files in memory where the machine allows (test/temp-in-memory.ts).
    globalSetup: ['test/temp-in-memory.ts'],
    // Generous: a test's pass never depends on how busy the machine is (a shared 2-core machine
    // under load runs a month of the fixture book 5-10 times slower than when quiet).
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // One worker process per core (the default on this 2-core machine, stated so that a larger
    // machine does not start more workers than the tests' own child processes leave room for).
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'premia',
          include: ['test/**/*.test.ts'],
          // The PostgreSQL half runs with `npm run test:pg` (vitest.pg.config.ts).
          // The bench's smoke test (it runs every bench part at a tiny scale, about 15 s of CPU)
          // runs with `npm run test:bench`, which CI (.ci/run) runs after `npm test`.
          exclude: [
            ...configDefaults.exclude,
            'test/pg/**',
            ...OWN_MODULES,
            ...(process.env.PREMIA_TEST_BENCH === '1' ? [] : ['test/e2e/bench.test.ts']),
          ],
          isolate: false,
        },
      },
      { extends: true, test: { name: 'own modules', include: OWN_MODULES, isolate: true } },
    ],
  },
});
